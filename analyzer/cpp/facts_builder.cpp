// C++ facts from clang's AST. The matchers name declarations by their qualified names as clang
// resolved them (through typedefs, `using`, namespace aliases and templates); nothing here
// looks at how the user spelled a name.
#include "analyzer/cpp/facts_builder.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/StmtCXX.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Index/USRGeneration.h>
#include <clang/Lex/Lexer.h>
#include <clang/Tooling/Core/Replacement.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpulint::cpp {
namespace {

using namespace clang;
using namespace clang::ast_matchers;

// DL001's fix for a loader site: the validated edit `base` with the rule's worker count put
// between `prefix` and `suffix` (`...DataLoaderOptions(64).workers(` N `)`).
SetArgumentsFn workers_setter(const Edit& base, std::string prefix, std::string suffix) {
  return [s0 = base.start, e0 = base.end, prefix = std::move(prefix), suffix = std::move(suffix)](
             const std::vector<std::pair<std::string, std::string>>& args) {
    std::vector<Edit> out;
    for (const auto& [name, value] : args)
      if (name == "num_workers" || name == "workers") out.push_back(Edit{s0, e0, prefix + value + suffix});
    return out;
  };
}

// ---------------------------------------------------------------------------------------------
// Types and declarations, by their resolved qualified names.

bool has_qualified_name(const NamedDecl* d, llvm::StringRef name) {
  return d && d->getQualifiedNameAsString() == name;
}

// True when `rd` is `name` or has it among its (transitive) bases; template specializations
// count by their template's name ("torch::nn::ModuleHolder").
bool derives_from(const CXXRecordDecl* rd, llvm::StringRef name, int depth = 0) {
  if (!rd || depth > 32) return false;
  if (has_qualified_name(rd, name)) return true;
  rd = rd->getDefinition();
  if (!rd) return false;
  for (const CXXBaseSpecifier& b : rd->bases())
    if (derives_from(b.getType()->getAsCXXRecordDecl(), name, depth + 1)) return true;
  return false;
}

const CXXRecordDecl* record_of(QualType t) {
  if (t.isNull()) return nullptr;
  t = t.getNonReferenceType();
  if (t->isPointerType()) t = t->getPointeeType();
  return t->getAsCXXRecordDecl();
}

bool is_tensor_type(QualType t) { return has_qualified_name(record_of(t), "at::Tensor"); }

// std::tuple<...> (through references, typedefs and `auto`).
bool is_tuple_type(QualType t) { return has_qualified_name(record_of(t), "std::tuple"); }

bool is_module_record(const CXXRecordDecl* rd) {
  return derives_from(rd, "torch::nn::Module") || derives_from(rd, "torch::nn::ModuleHolder");
}

// The module class a model variable's type holds: `Net` (derived from torch::nn::Module),
// `torch::nn::ModuleHolder<NetImpl>` (TORCH_MODULE), `std::shared_ptr<Net>`.
bool is_model_type(QualType t) {
  const CXXRecordDecl* rd = record_of(t);
  if (!rd) return false;
  if (is_module_record(rd)) return true;
  if (auto* spec = dyn_cast<ClassTemplateSpecializationDecl>(rd)) {
    if ((has_qualified_name(spec, "std::shared_ptr") || has_qualified_name(spec, "std::unique_ptr")) &&
        spec->getTemplateArgs().size() >= 1 &&
        spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return is_module_record(spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl());
  }
  return false;
}

// std::vector / std::deque / std::list of at::Tensor.
bool is_tensor_vector(QualType t) {
  auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(record_of(t));
  if (!spec || spec->getTemplateArgs().size() < 1) return false;
  if (!has_qualified_name(spec, "std::vector") && !has_qualified_name(spec, "std::deque") &&
      !has_qualified_name(spec, "std::list"))
    return false;
  const TemplateArgument& a = spec->getTemplateArgs()[0];
  return a.getKind() == TemplateArgument::Type && is_tensor_type(a.getAsType());
}

// Methods of at::Tensor whose result aliases the tensor they are called on: the same storage,
// hence the same device. From ATen's native_functions.yaml (torchgen/packaged/ATen/native/ in
// python3-torch 1.13): each of these declares `(Tensor(a) self, ...) -> Tensor(a)`, the
// result an alias of `self` (reshape, flatten and contiguous return `self` itself or a copy
// when the layout needs one, on self's device either way). A CPU tensor seen through one is a
// CPU tensor: DEV002 follows them from an unmoved batch field, DEV003 from a factory call to
// its move. (at::Tensor has no `float()` method in C++: `.to(torch::kFloat)` is a move.)
constexpr llvm::StringRef kAliasingTensorMethods[] = {"view",    "reshape",   "flatten", "squeeze",   "unsqueeze",
                                                      "permute", "transpose", "t",       "contiguous"};

bool is_aliasing_tensor_method(const CXXMethodDecl* m) {
  return m && m->getDeclName().isIdentifier() && has_qualified_name(m->getParent(), "at::Tensor") &&
         llvm::is_contained(kAliasingTensorMethods, m->getName());
}

bool is_loss_name(llvm::StringRef n) {
  return n.contains("loss") || n.contains("cross_entropy");
}

// The device an expression names, read from the AST (never from how it is spelled): a
// c10::DeviceType enumerator (`c10::DeviceType::CUDA`), a constant initialised with one
// (c10/core/DeviceType.h: `constexpr DeviceType kCUDA = DeviceType::CUDA;`, reached as
// torch::kCUDA / at::kCUDA / c10::kCUDA / kCUDA through using-declarations), or a c10::Device
// constructed from either (`torch::Device(torch::kCUDA, 1)`) or from a string literal, which
// c10::Device parses as `TYPE[:INDEX]` ("cuda", "cuda:1", "cpu"; c10/core/Device.cpp).
// `index` is -1 for the current device of that type (c10::Device's default), nullopt when the
// index is not a constant. A runtime choice (`cond ? kCUDA : kCPU`, a variable that is not
// const) is Unknown.
struct DeviceValue {
  enum class Type { Unknown, Cpu, Cuda, Other };
  Type type = Type::Unknown;
  std::optional<int64_t> index = -1;
};

DeviceValue device_of_string(llvm::StringRef s) {
  DeviceValue v;
  auto [type, index] = s.split(':');
  if (type == "cpu") v.type = DeviceValue::Type::Cpu;
  else if (type == "cuda") v.type = DeviceValue::Type::Cuda;
  else if (!type.empty() && type.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == llvm::StringRef::npos)
    v.type = DeviceValue::Type::Other;  // mps, xpu, hip, meta, …
  else
    return DeviceValue{DeviceValue::Type::Unknown, std::nullopt};
  if (s.contains(':')) {
    unsigned long long n = 0;
    if (index.getAsInteger(10, n)) return DeviceValue{DeviceValue::Type::Unknown, std::nullopt};
    v.index = static_cast<int64_t>(n);
  }
  return v;
}

DeviceValue device_value(const Expr* e, const ASTContext& ctx, int depth = 0) {
  const DeviceValue unknown{DeviceValue::Type::Unknown, std::nullopt};
  if (!e || depth > 16) return unknown;
  e = e->IgnoreUnlessSpelledInSource();
  if (auto* fc = dyn_cast<CXXFunctionalCastExpr>(e)) return device_value(fc->getSubExpr(), ctx, depth + 1);
  if (auto* sl = dyn_cast<StringLiteral>(e)) {
    if (sl->getCharByteWidth() != 1) return unknown;
    return device_of_string(sl->getString());
  }
  if (auto* c = dyn_cast<CXXConstructExpr>(e)) {
    const CXXConstructorDecl* ctor = c->getConstructor();
    if (!ctor || c->getNumArgs() < 1) return unknown;
    if (ctor->isCopyOrMoveConstructor()) return device_value(c->getArg(0), ctx, depth + 1);
    const CXXRecordDecl* cls = ctor->getParent();
    if (has_qualified_name(cls, "c10::Device")) {
      // Device(DeviceType type, DeviceIndex index = -1) or Device(const std::string&).
      DeviceValue v = device_value(c->getArg(0), ctx, depth + 1);
      if (c->getNumArgs() >= 2 && !isa<CXXDefaultArgExpr>(c->getArg(1))) {
        Expr::EvalResult r;
        if (!c->getArg(1)->isValueDependent() && c->getArg(1)->EvaluateAsInt(r, ctx)) v.index = r.Val.getInt().getExtValue();
        else v.index = std::nullopt;
      }
      return v;
    }
    // The std::string a literal builds for Device(const std::string&); the TensorOptions a
    // Device or DeviceType converts to (at::Tensor::to's one-argument overload takes those).
    bool std_string = cls && cls->isInStdNamespace() && cls->getDeclName().isIdentifier() && cls->getName() == "basic_string";
    if (std_string || has_qualified_name(cls, "c10::TensorOptions")) return device_value(c->getArg(0), ctx, depth + 1);
    return unknown;
  }
  if (auto* d = dyn_cast<DeclRefExpr>(e)) {
    if (auto* ec = dyn_cast<EnumConstantDecl>(d->getDecl())) {
      auto* ed = dyn_cast<EnumDecl>(ec->getDeclContext());
      if (!has_qualified_name(ed, "c10::DeviceType")) return unknown;
      if (has_qualified_name(ec, "c10::DeviceType::CUDA")) return DeviceValue{DeviceValue::Type::Cuda, -1};
      if (has_qualified_name(ec, "c10::DeviceType::CPU")) return DeviceValue{DeviceValue::Type::Cpu, -1};
      return DeviceValue{DeviceValue::Type::Other, -1};
    }
    // A constant (kCUDA, or a const variable of the program): its initializer.
    if (auto* vd = dyn_cast<VarDecl>(d->getDecl());
        vd && !isa<ParmVarDecl>(vd) && vd->getType().isConstQualified() && vd->getInit())
      return device_value(vd->getInit(), ctx, depth + 1);
  }
  return unknown;
}

// The device a fix writes for a device gpulint decided from the AST: valid in any scope.
std::string device_spelling(const DeviceValue& v) {
  if (v.type != DeviceValue::Type::Cuda || !v.index) return {};
  if (*v.index < 0) return "torch::kCUDA";
  return "torch::Device(torch::kCUDA, " + std::to_string(*v.index) + ")";
}

// ---------------------------------------------------------------------------------------------
// Expressions.

// Skips what the compiler added around an expression: implicit casts, temporaries, cleanups,
// parentheses and copy/move constructions.
const Expr* strip(const Expr* e) {
  for (int i = 0; e && i < 64; ++i) {
    const Expr* n = e->IgnoreImplicit()->IgnoreParens();
    if (auto* c = dyn_cast<CXXConstructExpr>(n)) {
      if (!isa<CXXTemporaryObjectExpr>(c) && c->getNumArgs() >= 1 && c->getConstructor() &&
          c->getConstructor()->isCopyOrMoveConstructor()) {
        n = c->getArg(0);
      }
    }
    if (auto* call = dyn_cast<CallExpr>(n)) {
      // std::move(x) is x.
      if (auto* fd = call->getDirectCallee(); fd && call->getNumArgs() == 1 &&
          (has_qualified_name(fd, "std::move") || has_qualified_name(fd, "std::forward")))
        n = call->getArg(0);
    }
    if (n == e) return e;
    e = n;
  }
  return e;
}

bool method_named(const CXXMethodDecl* m, llvm::StringRef name) {
  return m && m->getDeclName().isIdentifier() && m->getName() == name;
}

// The variable an expression designates through `*p`, `p->`, `p.get()` and copies.
const VarDecl* root_var(const Expr* e) {
  for (int i = 0; e && i < 32; ++i) {
    e = strip(e);
    if (auto* d = dyn_cast<DeclRefExpr>(e)) return dyn_cast<VarDecl>(d->getDecl());
    if (auto* op = dyn_cast<CXXOperatorCallExpr>(e)) {
      if ((op->getOperator() == OO_Arrow || op->getOperator() == OO_Star) && op->getNumArgs() >= 1) {
        e = op->getArg(0);
        continue;
      }
      return nullptr;
    }
    if (auto* u = dyn_cast<UnaryOperator>(e)) {
      if (u->getOpcode() == UO_Deref || u->getOpcode() == UO_AddrOf) {
        e = u->getSubExpr();
        continue;
      }
      return nullptr;
    }
    if (auto* mc = dyn_cast<CXXMemberCallExpr>(e)) {
      if (method_named(mc->getMethodDecl(), "get") || method_named(mc->getMethodDecl(), "ptr")) {
        e = mc->getImplicitObjectArgument();
        continue;
      }
      return nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

// The object a member call or an overloaded member operator is called on.
const Expr* object_of(const Expr* call) {
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) return mc->getImplicitObjectArgument();
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(call))
    if (op->getNumArgs() >= 1 && isa_and_nonnull<CXXMethodDecl>(op->getDirectCallee())) return op->getArg(0);
  return nullptr;
}

// The data member an expression designates: `losses_`, `this->history`, `state.total`
// (a MemberExpr naming a FieldDecl); nullptr for anything else.
const FieldDecl* member_field(const Expr* e) {
  auto* me = dyn_cast_or_null<MemberExpr>(strip(e));
  return me ? dyn_cast<FieldDecl>(me->getMemberDecl()) : nullptr;
}

// Do `a` and `b` designate the same object: `this`, the same variable, or the same data member
// of the same object (`losses_` and `this->losses_` are the same member)?
bool same_object(const Expr* a, const Expr* b, int depth = 0) {
  if (!a || !b || depth > 16) return false;
  a = strip(a);
  b = strip(b);
  if (isa<CXXThisExpr>(a) && isa<CXXThisExpr>(b)) return true;
  if (auto* ma = dyn_cast<MemberExpr>(a)) {
    auto* mb = dyn_cast<MemberExpr>(b);
    return mb && ma->getMemberDecl()->getCanonicalDecl() == mb->getMemberDecl()->getCanonicalDecl() &&
           same_object(ma->getBase(), mb->getBase(), depth + 1);
  }
  const VarDecl* va = root_var(a);
  return va && va == root_var(b);
}

// Is `member` (a MemberExpr) named anywhere inside `s`?
bool names_member(const Stmt* s, const Expr* member, int depth = 0) {
  if (!s || depth > 256) return false;
  if (auto* me = dyn_cast<MemberExpr>(s); me && same_object(me, member)) return true;
  for (const Stmt* c : s->children())
    if (names_member(c, member, depth + 1)) return true;
  return false;
}

// In a template, a member call on an object whose type depends on a template parameter
// (`loss.backward()` where `auto loss = criterion(model_->forward(x), y)`): clang resolves it
// only when the template is instantiated, so the member's name is all the pattern holds. The
// member expression of such a call named `name`, or nullptr.
const CXXDependentScopeMemberExpr* dependent_member_call(const Stmt* s, llvm::StringRef name) {
  auto* call = dyn_cast<CallExpr>(s);
  if (!call || !call->getCallee()) return nullptr;
  auto* dm = dyn_cast<CXXDependentScopeMemberExpr>(call->getCallee()->IgnoreParenImpCasts());
  if (!dm || dm->isImplicitAccess() || !dm->getMember().isIdentifier()) return nullptr;
  return dm->getMember().getAsIdentifierInfo()->getName() == name ? dm : nullptr;
}

// A backward() call: `t.backward()` on an at::Tensor, torch::autograd::backward(...), or in a
// template `t.backward()` on a tensor whose type is dependent (dependent_member_call).
bool is_backward_call(const Stmt* s) {
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(s)) {
    const CXXMethodDecl* m = mc->getMethodDecl();
    return method_named(m, "backward") && has_qualified_name(m->getParent(), "at::Tensor");
  }
  if (dependent_member_call(s, "backward")) return true;
  if (auto* call = dyn_cast<CallExpr>(s)) return has_qualified_name(call->getDirectCallee(), "torch::autograd::backward");
  return false;
}

// The tensor a backward() call (is_backward_call) back-propagates from, when it is called on one
// (`t.backward()`); nullptr for torch::autograd::backward(...).
const Expr* backward_object(const CallExpr* call) {
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(call)) return mc->getImplicitObjectArgument();
  if (auto* dm = dependent_member_call(call, "backward")) return dm->getBase();
  return nullptr;
}

// The backward() calls inside `s` (lambdas excluded: their bodies run when they are called).
void backward_calls(const Stmt* s, std::vector<const CallExpr*>& out, int depth = 0) {
  if (!s || depth > 256 || isa<LambdaExpr>(s)) return;
  if (is_backward_call(s)) out.push_back(cast<CallExpr>(s));
  for (const Stmt* c : s->children()) backward_calls(c, out, depth + 1);
}

// A call of a module: `model->forward(x)`, `model(x)` (ModuleHolder::operator()), `net.forward(x)`.
bool is_module_call(const Expr* e) {
  e = strip(e);
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(e)) {
    const CXXMethodDecl* m = mc->getMethodDecl();
    return method_named(m, "forward") && is_module_record(m->getParent());
  }
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(e)) {
    if (op->getOperator() != OO_Call) return false;
    auto* m = dyn_cast_or_null<CXXMethodDecl>(op->getDirectCallee());
    return m && is_module_record(m->getParent());
  }
  return false;
}

// The module class a module call runs (the holder's Impl for ModuleHolder<Impl>).
const CXXRecordDecl* called_module_class(const Expr* e) {
  e = strip(e);
  const CXXRecordDecl* rd = nullptr;
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(e)) rd = mc->getMethodDecl()->getParent();
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(e))
    if (auto* m = dyn_cast_or_null<CXXMethodDecl>(op->getDirectCallee())) rd = m->getParent();
  if (auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(rd))
    if (has_qualified_name(spec, "torch::nn::ModuleHolder") && spec->getTemplateArgs().size() >= 1 &&
        spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  if (rd && rd->getDefinition()) {
    for (const CXXBaseSpecifier& b : rd->getDefinition()->bases()) {
      auto* spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(b.getType()->getAsCXXRecordDecl());
      if (spec && has_qualified_name(spec, "torch::nn::ModuleHolder") && spec->getTemplateArgs().size() >= 1 &&
          spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
        return spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
    }
  }
  return rd;
}

bool is_loss_module_call(const Expr* e) {
  if (!is_module_call(e)) return false;
  const CXXRecordDecl* rd = called_module_class(e);
  return rd && rd->getDeclName().isIdentifier() && rd->getName().endswith("LossImpl");
}

// A call of a LibTorch loss function (torch::nll_loss, torch::nn::functional::cross_entropy, …).
bool is_loss_function_call(const Expr* e) {
  auto* call = dyn_cast<CallExpr>(strip(e));
  if (!call || isa<CXXMemberCallExpr>(call) || isa<CXXOperatorCallExpr>(call)) return false;
  const FunctionDecl* fd = call->getDirectCallee();
  if (!fd || !fd->getDeclName().isIdentifier()) return false;
  std::string q = fd->getQualifiedNameAsString();
  bool torch_ns = llvm::StringRef(q).startswith("torch::") || llvm::StringRef(q).startswith("at::");
  return torch_ns && is_loss_name(fd->getName());
}

// ---------------------------------------------------------------------------------------------

class Builder {
 public:
  explicit Builder(ASTContext& ctx) : ctx_(ctx), sm_(ctx.getSourceManager()), lo_(ctx.getLangOpts()) {}

  FileFacts run();

 private:
  // Byte offset of `loc` in the main file (macro arguments: where they are written).
  std::optional<uint32_t> offset(SourceLocation loc) const {
    if (loc.isInvalid()) return std::nullopt;
    loc = sm_.getFileLoc(loc);
    if (!sm_.isWrittenInMainFile(loc)) return std::nullopt;
    return sm_.getFileOffset(loc);
  }
  std::optional<uint32_t> end_offset(SourceLocation loc) const {
    if (loc.isInvalid()) return std::nullopt;
    loc = sm_.getFileLoc(loc);
    SourceLocation end = Lexer::getLocForEndOfToken(loc, 0, sm_, lo_);
    if (end.isInvalid()) return std::nullopt;
    return offset(end);
  }
  std::optional<Range> range(SourceRange r) const {
    auto b = offset(r.getBegin());
    auto e = end_offset(r.getEnd());
    if (!b || !e || *e < *b) return std::nullopt;
    return Range{*b, *e};
  }
  std::string text(Range r) const {
    llvm::StringRef buf = sm_.getBufferData(sm_.getMainFileID());
    if (r.end > buf.size() || r.start > r.end) return {};
    return buf.substr(r.start, r.end - r.start).str();
  }
  // An edit, made as a clang Replacement on the main file.
  std::optional<Edit> edit(uint32_t start, uint32_t end, std::string content) const {
    SourceLocation b = sm_.getComposedLoc(sm_.getMainFileID(), start);
    SourceLocation e = sm_.getComposedLoc(sm_.getMainFileID(), end);
    tooling::Replacement r(sm_, CharSourceRange::getCharRange(b, e), content, lo_);
    if (!r.isApplicable()) return std::nullopt;
    return Edit{static_cast<uint32_t>(r.getOffset()), static_cast<uint32_t>(r.getOffset() + r.getLength()),
                r.getReplacementText().str()};
  }

  // Parent that may be a declaration (VarDecl initializer → DeclStmt).
  const Stmt* parent_through_decls(const Stmt* s) {
    auto ps = ctx_.getParents(*s);
    if (ps.empty()) return nullptr;
    if (auto* st = ps[0].get<Stmt>()) return st;
    if (auto* vd = ps[0].get<VarDecl>()) {
      auto pp = ctx_.getParents(*vd);
      if (!pp.empty()) return pp[0].get<Stmt>();
    }
    return nullptr;
  }
  static bool is_loop(const Stmt* s) {
    return isa<ForStmt>(s) || isa<CXXForRangeStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s);
  }
  const Stmt* enclosing_loop(const Stmt* s) {
    for (int i = 0; s && i < 512; ++i) {
      s = parent_through_decls(s);
      if (s && is_loop(s)) return s;
      if (s && isa<LambdaExpr>(s)) return nullptr;
    }
    return nullptr;
  }
  bool inside(const Decl* d, const Stmt* s) {
    auto dr = range(d->getSourceRange());
    auto sr = range(s->getSourceRange());
    return dr && sr && dr->start >= sr->start && dr->end <= sr->end;
  }
  // Is `s` in the scope of a torch::NoGradGuard / c10::InferenceMode declared before it?
  bool under_no_grad(const Stmt* s) {
    const Stmt* child = s;
    for (int i = 0; child && i < 512; ++i) {
      const Stmt* p = parent_through_decls(child);
      if (!p) return false;
      if (auto* cs = dyn_cast<CompoundStmt>(p)) {
        for (const Stmt* st : cs->body()) {
          if (st == child) break;
          if (auto* ds = dyn_cast<DeclStmt>(st))
            for (const Decl* d : ds->decls())
              if (auto* vd = dyn_cast<VarDecl>(d)) {
                const CXXRecordDecl* rd = record_of(vd->getType());
                if (derives_from(rd, "c10::NoGradGuard") || derives_from(rd, "c10::InferenceMode") ||
                    derives_from(rd, "c10::AutoNonVariableTypeMode"))
                  return true;
              }
        }
      }
      child = p;
    }
    return false;
  }

  // Does the value of `e` carry an autograd graph (a model output, a loss, arithmetic on them)?
  bool attached(const Expr* e, int depth = 0);
  // For a call, with autograd on, of a function of the program defined in this file that
  // returns a tensor (a trainer's `compute_td_loss()` that back-propagates its loss and returns
  // it): whether one of its `return` statements returns an attached value. nullopt for any
  // other call (a library function, one defined in another file, a recursion).
  std::optional<bool> returns_attached(const CallExpr* call, int depth);
  // Does element `index` of the std::tuple value `e` carry an autograd graph? `e` is a
  // `std::make_tuple(...)` / `std::tuple{...}` / `{a, b}` (the element's own expression), a local
  // tuple variable (its initializer and later assignments), a call of a function of this file
  // (its `return` statements), or a module call (`ac->forward(s)` returning a tuple: its
  // forward's returns when the class is defined here, otherwise every element, as LSTM's
  // `(output, (h, c))`; nothing under NoGradGuard). nullopt when gpulint cannot follow it.
  // The tuple-like `std::get<I>(t)` and structured bindings `auto [a, v] = f();` read it.
  std::optional<bool> element_attached(const Expr* e, unsigned index, int depth);
  // element_attached over the returns of `def` (a function or forward with a body): true when
  // one return's element is attached, nullopt when one cannot be followed (or a recursion).
  std::optional<bool> returned_element_attached(const FunctionDecl* def, unsigned index, int depth);
  // The `return` statements of `def`'s body that are its own (not a lambda's inside it).
  std::vector<const ReturnStmt*> own_returns(const FunctionDecl* def);
  std::set<std::pair<const Decl*, unsigned>> visiting_elements_;
  // Tensor data members assigned a value (`mu_ = torch::tanh(lin_->forward(x));`), anywhere in
  // the translation unit: a member holds the graph of the last value assigned to it.
  std::map<const FieldDecl*, std::vector<const Expr*>> field_assignments_;
  std::set<const FieldDecl*> visiting_fields_;
  // Tuple variables assigned after their declaration: `av = ac->forward(s);`.
  std::map<const VarDecl*, std::vector<const Expr*>> tuple_assignments_;
  // Is backward() (is_backward_call) called on the local variable `vd` itself, anywhere in
  // the function that declares it (`loss.backward()`)?
  bool backpropagated(const VarDecl* vd);
  std::map<const VarDecl*, bool> backpropagated_;
  std::set<const FunctionDecl*> returning_;

  // Call sites of the functions written in this file, by canonical declaration; a function
  // whose name is also used other than as a callee (its address taken) is in `escaped_`.
  void index_call_sites();
  // The function (or method, or lambda's operator()) whose body holds `n`.
  const FunctionDecl* enclosing_function(DynTypedNode n);
  // True when `n` runs only when CUDA is not available: it is in the else branch of
  // `if (torch::cuda::is_available())` (or a bool variable initialised with it), in the then
  // branch of `if (!torch::cuda::is_available())`, or in a function of this file every call
  // of which is on such a path. A deliberate CPU fallback: a model or batch left on the CPU
  // there is what the program means (DEV001 / DEV002 stay silent).
  bool on_cpu_fallback_path(DynTypedNode n, int depth = 0);
  // True when `n` is in a function of this file called from inside a loop (directly, or
  // through up to three calls): it runs once per iteration of that loop, like the loop body
  // (an RL agent's per-step `train(...)` / `update(...)`).
  bool called_from_loop(DynTypedNode n, int depth = 0);
  // The key naming a function of the program in every translation unit (CrossFileFacts):
  // clang's USR of its canonical declaration (of the template's pattern for an instantiation).
  // Empty for what is not the program's own: the standard library, LibTorch (std::, torch::,
  // at::, c10::), a declaration in a system header, a lambda, or one clang cannot name.
  std::string function_key(const FunctionDecl* fd) const;
  // Does `body` run a training loop: a loop whose body calls backward() or an optimizer's
  // step()? A function that does runs the steps itself; one that does not (a per-step
  // `train_step()` that loops over the samples of its batch under NoGradGuard) may be one step.
  bool runs_training_loop(const Stmt* body);
  // For a finding at `s` that is neither in a loop nor in a function this file calls in one:
  // the key of the function holding it when another file may call that function once per
  // step: a named function (not main(), not a lambda, its address not taken here) that runs no
  // training loop of its own. Empty otherwise: the finding is dropped.
  std::string cross_file_candidate(const Stmt* s);
  // True when `s` is in a training-step function: one that calls backward() and an optimizer's
  // step() outside any loop of its own and runs no training loop (`void train_step() { ...;
  // loss.backward(); optimizer.step(); }`, a DQN agent's update). Each call of it is one step, wherever it is
  // called from (another file, or code not written yet), so what it creates, it creates once
  // per step.
  bool in_step_function(const Stmt* s);
  bool is_step_function(const FunctionDecl* fn);
  std::map<const FunctionDecl*, bool> step_functions_;  // is_step_function, per function
  // The method a call clang could not resolve names, when clang kept its object but not the
  // method: `agent.act(state)` where `state`'s type comes from a header that is missing (the
  // callee is then a RecoveryExpr around `agent`). The method is looked up by the identifier
  // clang lexed at the callee's end, in the object's class (complete, declared in the program):
  // the one method of that name, or nullptr (none, overloads, a template, a dependent type).
  const CXXMethodDecl* recovered_method(const CallExpr* call);
  // CrossFileFacts: the program's functions this file calls in loops, and the calls made by
  // its functions that have no loop of their own.
  void collect_cross_file(FileFacts& f);
  std::map<const Stmt*, bool> training_loop_;
  // +1: `cond` tests that CUDA is available; -1: that it is not; 0: neither.
  int cuda_availability_test(const Expr* cond, int depth = 0);
  std::map<const FunctionDecl*, std::vector<const CallExpr*>> call_sites_;
  std::set<const FunctionDecl*> escaped_;
  bool call_sites_indexed_ = false;

  void collect_training_signals();
  // Does `s` hold code clang could not make sense of (an expression with errors: a recovery
  // expression for a call of an undeclared or ill-typed name; a declaration marked invalid)?
  // Around such code clang drops whole statements (a range-for over an invalid range, with
  // its body), so what is missing from the AST there is unknown.
  bool holds_dropped_code(const Stmt* s, int depth = 0);
  void collect_loaders(FileFacts& f);
  // make_data_loader calls clang left unresolved: a dataset whose type comes from a header
  // that is missing (clang 16 then builds recovery AST: a call of an UnresolvedLookupExpr with
  // RecoveryExpr arguments), or a dependent call inside a template. Only calls whose callee
  // lookup found torch::data::make_data_loader and nothing else.
  std::vector<const CallExpr*> unresolved_loader_calls();
  // The DataLoaderOptions argument of an unresolved make_data_loader call, located through the
  // parameter lists of the candidates the lookup found (every overload takes its options as
  // the last parameter, defaulted where it is the second): Defaulted when the call omits it,
  // BatchSize when an integer is written there (it converts to DataLoaderOptions(batch_size)),
  // Options when a DataLoaderOptions expression is, Unknown when the candidates disagree or
  // the argument's type is itself unknown.
  struct RecoveredOptions {
    enum class Kind { Unknown, Defaulted, BatchSize, Options } kind = Kind::Unknown;
    const Expr* argument = nullptr;
  };
  RecoveredOptions recovered_options(const CallExpr* call);
  void collect_models(FileFacts& f);
  // DEV001 for a module held in a data member of a class of this translation unit (an RL
  // agent's `policy` built in the constructor's initializer list, trained through
  // `policy->parameters()` in a member optimizer): see the definition.
  void collect_member_models(FileFacts& f);
  void collect_unmoved_batches(FileFacts& f);
  void collect_created_then_moved(FileFacts& f);
  void collect_kept_tensors(FileFacts& f);
  const Expr* concatenated_onto(const Expr* rhs, const Expr* total, const VarDecl* total_var);
  // MEM001 for a data member (`losses_.push_back(loss)` at `stmt`, `container` the member
  // expression): the FieldDecl when the member outlives the steps it is written in: the member
  // of a variable declared outside the enclosing loop, or a member of `this` written inside a
  // loop that calls backward(), or in a per-step method of the member's class (one whose body
  // calls backward() outside any loop: each call is one step, and the object keeps what it
  // stored). nullptr otherwise, and when the member is consumed in that same step (see
  // `member_consumed`).
  const FieldDecl* kept_in_member(const Stmt* stmt, const Expr* container);
  // Is the member `container` emptied, reset or back-propagated inside `scope` (other than by
  // `except`): `.clear()` / `.swap()` / `.erase()` / `.pop_*()` / `.resize()` / `.assign()`,
  // an assignment whose right side does not read it, or a backward() call on an expression
  // that reads it (`torch::stack(losses_).sum().backward()`)? Then each step's graph is
  // released with the step.
  bool member_consumed(const Stmt* scope, const Expr* container, const Stmt* except, int depth = 0);

  ASTContext& ctx_;
  SourceManager& sm_;
  const LangOptions& lo_;
  std::map<const VarDecl*, std::vector<const Expr*>> assignments_;  // Tensor var = expr
  std::set<const VarDecl*> visiting_;
  // The device a model was placed on, as text a fix can write: either spelled by gpulint
  // from the device the AST names (`portable`: `torch::kCUDA`, valid in any scope), or the
  // device variable the program passed (`var`, its name as written: valid in `scope`, or
  // anywhere when `scope` is null, a global).
  struct PlacedDevice {
    std::string text;
    bool portable = false;
    const FunctionDecl* scope = nullptr;
    const VarDecl* var = nullptr;
  };
  // Models: variable → placed or not, and on which device.
  struct Model {
    const VarDecl* var = nullptr;
    bool placed = false;
    bool escapes = false;          // passed to a function gpulint does not follow
    std::optional<PlacedDevice> device;  // how it was placed, usable in a fix
  };
  std::map<const VarDecl*, Model> models_;
  // How a function of this file uses its parameter `index` when handed a model.
  struct ParamUse {
    bool trains = false;   // its parameters() are read (an optimizer is built on them)
    bool places = false;   // .to(...) / .cuda() is called on it
    bool escapes = false;  // handed on where gpulint cannot follow
    std::optional<PlacedDevice> device;
  };
  ParamUse param_use(const FunctionDecl* fn, unsigned index, int depth);
  // Follows the calls and constructions in `body` (a function body; nullptr: the whole
  // translation unit) that hand a model to code of this file: for each argument `model_of`
  // maps to a variable, what the callee does with it (param_use) is merged into `uses[variable]`.
  void merge_calls(const Stmt* body, const std::function<const VarDecl*(const Expr*)>& model_of,
                   std::map<const VarDecl*, ParamUse>& uses, int depth);
  std::optional<PlacedDevice> placement_device(const CXXMemberCallExpr* mv);
  const Model* parameter_model(const ParmVarDecl* param);
  std::map<std::pair<const FunctionDecl*, unsigned>, ParamUse> param_uses_;
  std::map<const ParmVarDecl*, std::optional<Model>> param_models_;
  bool trains_ = false;
  bool gpu_intent_ = false;
};

#define GPULINT_MATCH(M) match(traverse(TK_AsIs, findAll((M).bind("n"))), ctx_)

template <typename T>
std::vector<const T*> nodes(const llvm::SmallVector<BoundNodes, 1>& found) {
  std::vector<const T*> out;
  std::set<const T*> seen;
  for (const BoundNodes& b : found)
    if (auto* n = b.getNodeAs<T>("n"); n && seen.insert(n).second) out.push_back(n);
  return out;
}

bool Builder::holds_dropped_code(const Stmt* s, int depth) {
  if (!s || depth > 512) return false;
  if (auto* e = dyn_cast<Expr>(s); e && e->containsErrors()) return true;
  if (auto* ds = dyn_cast<DeclStmt>(s))
    for (const Decl* d : ds->decls())
      if (d->isInvalidDecl()) return true;
  for (const Stmt* c : s->children())
    if (holds_dropped_code(c, depth + 1)) return true;
  return false;
}

bool Builder::attached(const Expr* e, int depth) {
  if (!e || depth > 24) return false;
  e = strip(e);
  if (is_module_call(e)) return !under_no_grad(e);
  if (auto* call = dyn_cast<CallExpr>(e); call && !isa<CXXOperatorCallExpr>(call) && call->getNumArgs() == 1) {
    // std::get<I>(t): element I of a tuple.
    const FunctionDecl* fd = call->getDirectCallee();
    const TemplateArgumentList* targs = fd ? fd->getTemplateSpecializationArgs() : nullptr;
    if (fd && targs && targs->size() >= 1 && targs->get(0).getKind() == TemplateArgument::Integral &&
        has_qualified_name(fd, "std::get") && is_tuple_type(call->getArg(0)->getType())) {
      std::optional<bool> r =
          element_attached(call->getArg(0), static_cast<unsigned>(targs->get(0).getAsIntegral().getZExtValue()), depth + 1);
      return r.value_or(false);
    }
  }
  if (auto* call = dyn_cast<CallExpr>(e); call && !isa<CXXOperatorCallExpr>(call))
    if (std::optional<bool> r = returns_attached(call, depth)) return *r;
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(e)) {
    const CXXMethodDecl* m = mc->getMethodDecl();
    if (!m || !is_tensor_type(mc->getType())) return false;
    if (!has_qualified_name(m->getParent(), "at::Tensor")) return false;
    if (under_no_grad(mc)) return false;  // computed with autograd off: no graph
    if (m->getDeclName().isIdentifier()) {
      llvm::StringRef n = m->getName();
      if (n == "detach" || n == "detach_" || n == "item" || n == "data" || n == "clone_detached") return false;
    }
    if (attached(mc->getImplicitObjectArgument(), depth + 1)) return true;
    for (const Expr* a : mc->arguments())
      if (attached(a, depth + 1)) return true;
    return false;
  }
  if (auto* call = dyn_cast<CallExpr>(e)) {
    // Operators and free functions of LibTorch: attached when an operand is.
    if (!is_tensor_type(call->getType())) return false;
    const FunctionDecl* fd = call->getDirectCallee();
    if (!fd) return false;
    std::string q = fd->getQualifiedNameAsString();
    llvm::StringRef qs(q);
    if (!(qs.startswith("torch::") || qs.startswith("at::") || isa<CXXOperatorCallExpr>(call))) return false;
    if (under_no_grad(call)) return false;  // computed with autograd off: no graph
    for (const Expr* a : call->arguments())
      if (attached(a, depth + 1)) return true;
    return false;
  }
  if (auto* bo = dyn_cast<BinaryOperator>(e))
    return attached(bo->getLHS(), depth + 1) || attached(bo->getRHS(), depth + 1);
  if (auto* co = dyn_cast<ConditionalOperator>(e))
    return attached(co->getTrueExpr(), depth + 1) || attached(co->getFalseExpr(), depth + 1);
  if (auto* me = dyn_cast<MemberExpr>(e)) {
    // A tensor data member: attached when a value assigned to it is (`mu_` assigned from a
    // forward pass, read by `log_prob()`).
    auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
    if (!fd || !is_tensor_type(fd->getType())) return false;
    fd = fd->getCanonicalDecl();
    if (!visiting_fields_.insert(fd).second) return false;
    bool r = false;
    for (const Expr* rhs : field_assignments_[fd])
      if (attached(rhs, depth + 1)) { r = true; break; }
    visiting_fields_.erase(fd);
    return r;
  }
  if (auto* d = dyn_cast<DeclRefExpr>(e); d && isa<BindingDecl>(d->getDecl())) {
    // `auto [action, value] = ac->forward(s);`: element `i` of the decomposed tuple.
    auto* bd = cast<BindingDecl>(d->getDecl());
    auto* dd = dyn_cast_or_null<DecompositionDecl>(bd->getDecomposedDecl());
    if (!dd || !dd->getInit() || !is_tuple_type(dd->getType())) return false;
    unsigned i = 0;
    for (const BindingDecl* b : dd->bindings()) {
      if (b == bd) break;
      ++i;
    }
    return element_attached(dd->getInit(), i, depth + 1).value_or(false);
  }
  if (auto* d = dyn_cast<DeclRefExpr>(e)) {
    auto* vd = dyn_cast<VarDecl>(d->getDecl());
    if (!vd || !vd->hasLocalStorage() || isa<ParmVarDecl>(vd)) return false;
    // A local backward() is called on holds a graph (backward raises on a tensor without
    // one): in a template that is all there is to know of a dependent `auto loss = ...`.
    if (backpropagated(vd)) return true;
    if (!is_tensor_type(vd->getType())) return false;
    if (!visiting_.insert(vd).second) return false;
    bool r = vd->getInit() && attached(vd->getInit(), depth + 1);
    if (!r)
      for (const Expr* rhs : assignments_[vd])
        if (attached(rhs, depth + 1)) { r = true; break; }
    visiting_.erase(vd);
    return r;
  }
  return false;
}

std::optional<bool> Builder::returns_attached(const CallExpr* call, int depth) {
  const FunctionDecl* fd = call->getDirectCallee();
  const FunctionDecl* def = nullptr;
  if (!fd || !is_tensor_type(call->getType()) || function_key(fd).empty() || !fd->hasBody(def) || !def ||
      !def->getBody())
    return std::nullopt;
  if (under_no_grad(call)) return false;
  if (!returning_.insert(def).second) return std::nullopt;
  bool r = false;
  for (const ReturnStmt* ret : own_returns(def))
    if (attached(ret->getRetValue(), depth + 1)) { r = true; break; }
  returning_.erase(def);
  return r;
}

std::optional<bool> Builder::element_attached(const Expr* e, unsigned index, int depth) {
  if (!e || depth > 24) return std::nullopt;
  e = strip(e);
  // `return {action, value};` / `std::tuple<...>{a, b}` / `std::tuple<...>(a, b)`.
  if (auto* il = dyn_cast<InitListExpr>(e)) {
    if (il->getNumInits() == 1 && is_tuple_type(il->getInit(0)->getType()))
      return element_attached(il->getInit(0), index, depth + 1);
    if (index < il->getNumInits()) return attached(il->getInit(index), depth + 1);
    return std::nullopt;
  }
  if (auto* ce = dyn_cast<CXXConstructExpr>(e); ce && is_tuple_type(ce->getType())) {
    if (ce->getNumArgs() == 1 && is_tuple_type(ce->getArg(0)->getType()))
      return element_attached(ce->getArg(0), index, depth + 1);
    if (index < ce->getNumArgs()) return attached(ce->getArg(index), depth + 1);
    return std::nullopt;
  }
  if (is_module_call(e)) {
    if (under_no_grad(e)) return false;
    // The class's forward, when this file defines it: its returns, element by element.
    const CXXMethodDecl* forward = nullptr;
    if (const CXXRecordDecl* rd = called_module_class(e); rd && rd->hasDefinition())
      for (const CXXMethodDecl* m : rd->getDefinition()->methods())
        if (method_named(m, "forward") && m->hasBody()) forward = m;
    if (!forward) return true;  // a LibTorch module (LSTM: output and state all have graphs)
    const FunctionDecl* def = nullptr;
    if (!forward->hasBody(def) || !def || !def->getBody()) return true;
    return returned_element_attached(def, index, depth);
  }
  if (auto* call = dyn_cast<CallExpr>(e)) {
    const FunctionDecl* fd = call->getDirectCallee();
    if (fd && call->getNumArgs() > index &&
        (has_qualified_name(fd, "std::make_tuple") || has_qualified_name(fd, "std::forward_as_tuple")))
      return attached(call->getArg(index), depth + 1);
    const FunctionDecl* def = nullptr;
    if (isa<CXXOperatorCallExpr>(call) || !fd || function_key(fd).empty() || !fd->hasBody(def) || !def ||
        !def->getBody())
      return std::nullopt;
    if (under_no_grad(call)) return false;
    return returned_element_attached(def, index, depth);
  }
  if (auto* d = dyn_cast<DeclRefExpr>(e)) {
    auto* vd = dyn_cast<VarDecl>(d->getDecl());
    if (!vd || !vd->hasLocalStorage() || isa<ParmVarDecl>(vd) || !is_tuple_type(vd->getType())) return std::nullopt;
    if (!visiting_elements_.insert({vd, index}).second) return std::nullopt;
    std::optional<bool> r = false;
    std::vector<const Expr*> values;
    if (vd->getInit()) values.push_back(vd->getInit());
    for (const Expr* rhs : tuple_assignments_[vd]) values.push_back(rhs);
    if (values.empty()) r = std::nullopt;
    for (const Expr* v : values) {
      std::optional<bool> x = element_attached(v, index, depth + 1);
      if (!x) { r = std::nullopt; break; }
      if (*x) { r = true; break; }
    }
    visiting_elements_.erase({vd, index});
    return r;
  }
  return std::nullopt;
}

std::vector<const ReturnStmt*> Builder::own_returns(const FunctionDecl* def) {
  std::vector<const ReturnStmt*> out;
  for (const ReturnStmt* ret : nodes<ReturnStmt>(match(stmt(forEachDescendant(returnStmt().bind("n"))), *def->getBody(), ctx_)))
    if (enclosing_function(DynTypedNode::create(*ret)) == def) out.push_back(ret);  // not a lambda's
  return out;
}

std::optional<bool> Builder::returned_element_attached(const FunctionDecl* def, unsigned index, int depth) {
  if (!visiting_elements_.insert({def, index}).second) return std::nullopt;
  std::optional<bool> r = false;
  for (const ReturnStmt* ret : own_returns(def)) {
    std::optional<bool> x = element_attached(ret->getRetValue(), index, depth + 1);
    if (!x) { r = std::nullopt; break; }
    if (*x) { r = true; break; }
  }
  visiting_elements_.erase({def, index});
  return r;
}

bool Builder::backpropagated(const VarDecl* vd) {
  if (auto it = backpropagated_.find(vd); it != backpropagated_.end()) return it->second;
  bool r = false;
  auto* fn = dyn_cast_or_null<FunctionDecl>(vd->getParentFunctionOrMethod());
  if (fn && fn->getBody()) {
    std::vector<const CallExpr*> calls;
    backward_calls(fn->getBody(), calls);
    for (const CallExpr* c : calls) {
      const Expr* object = backward_object(c);
      auto* ref = object ? dyn_cast<DeclRefExpr>(strip(object)) : nullptr;
      if (ref && ref->getDecl() == vd) { r = true; break; }
    }
  }
  backpropagated_[vd] = r;
  return r;
}

void Builder::index_call_sites() {
  if (call_sites_indexed_) return;
  call_sites_indexed_ = true;
  for (const DeclRefExpr* r : nodes<DeclRefExpr>(GPULINT_MATCH(declRefExpr(to(functionDecl()))))) {
    auto* fd = dyn_cast<FunctionDecl>(r->getDecl());
    if (!fd) continue;
    fd = fd->getCanonicalDecl();
    auto ps = ctx_.getParents(*r);
    const Expr* up = r;
    // the callee of a call, through the implicit function-to-pointer decay
    while (!ps.empty() && ps[0].get<ImplicitCastExpr>()) {
      up = ps[0].get<ImplicitCastExpr>();
      ps = ctx_.getParents(*up);
    }
    const CallExpr* call = ps.empty() ? nullptr : ps[0].get<CallExpr>();
    if (call && call->getCallee() == up) call_sites_[fd].push_back(call);
    else escaped_.insert(fd);
  }
  for (const CXXMemberCallExpr* mc : nodes<CXXMemberCallExpr>(GPULINT_MATCH(cxxMemberCallExpr())))
    if (const CXXMethodDecl* m = mc->getMethodDecl()) call_sites_[m->getCanonicalDecl()].push_back(mc);
}

const FunctionDecl* Builder::enclosing_function(DynTypedNode n) {
  for (int i = 0; i < 1024; ++i) {
    auto ps = ctx_.getParents(n);
    if (ps.empty()) return nullptr;
    n = ps[0];
    if (auto* fd = n.get<FunctionDecl>()) return fd;
  }
  return nullptr;
}

int Builder::cuda_availability_test(const Expr* cond, int depth) {
  if (!cond || depth > 4) return 0;
  cond = cond->IgnoreParenImpCasts();
  if (auto* u = dyn_cast<UnaryOperator>(cond); u && u->getOpcode() == UO_LNot)
    return -cuda_availability_test(u->getSubExpr(), depth + 1);
  if (auto* call = dyn_cast<CallExpr>(cond))
    return has_qualified_name(call->getDirectCallee(), "torch::cuda::is_available") ? 1 : 0;
  if (auto* d = dyn_cast<DeclRefExpr>(cond))
    if (auto* vd = dyn_cast<VarDecl>(d->getDecl()); vd && vd->hasLocalStorage() && !isa<ParmVarDecl>(vd) &&
                                                    vd->getType()->isBooleanType() && vd->getInit())
      return cuda_availability_test(vd->getInit(), depth + 1);
  return 0;
}

bool Builder::on_cpu_fallback_path(DynTypedNode n, int depth) {
  if (depth > 4) return false;
  for (int i = 0; i < 1024; ++i) {
    auto ps = ctx_.getParents(n);
    if (ps.empty()) return false;
    const Stmt* child = n.get<Stmt>();
    n = ps[0];
    if (auto* ifs = n.get<IfStmt>(); ifs && child) {
      int t = cuda_availability_test(ifs->getCond());
      if ((t > 0 && ifs->getElse() == child) || (t < 0 && ifs->getThen() == child)) return true;
    }
    if (n.get<LambdaExpr>()) return false;
    if (auto* fd = n.get<FunctionDecl>()) {
      index_call_sites();
      const FunctionDecl* c = fd->getCanonicalDecl();
      auto it = call_sites_.find(c);
      if (it == call_sites_.end() || it->second.empty() || escaped_.count(c) || fd->isMain()) return false;
      for (const CallExpr* call : it->second)
        if (!on_cpu_fallback_path(DynTypedNode::create(*call), depth + 1)) return false;
      return true;
    }
  }
  return false;
}

bool Builder::called_from_loop(DynTypedNode n, int depth) {
  if (depth > 3) return false;
  const FunctionDecl* fd = enclosing_function(n);
  if (!fd || fd->isMain() || !offset(fd->getLocation())) return false;
  index_call_sites();
  auto it = call_sites_.find(fd->getCanonicalDecl());
  if (it == call_sites_.end()) return false;
  for (const CallExpr* call : it->second)
    if (enclosing_loop(call) || called_from_loop(DynTypedNode::create(*call), depth + 1)) return true;
  return false;
}

std::string Builder::function_key(const FunctionDecl* fd) const {
  if (!fd) return {};
  if (const FunctionDecl* pattern = fd->getTemplateInstantiationPattern()) fd = pattern;
  fd = fd->getCanonicalDecl();
  if (auto* m = dyn_cast<CXXMethodDecl>(fd); m && m->getParent()->isLambda()) return {};
  if (fd->isImplicit()) return {};
  SourceLocation loc = fd->getLocation();
  if (loc.isInvalid() || sm_.isInSystemHeader(sm_.getFileLoc(loc))) return {};
  std::string q = fd->getQualifiedNameAsString();
  for (llvm::StringRef lib : {"std::", "torch::", "at::", "c10::", "caffe2::", "__gnu_cxx::"})
    if (llvm::StringRef(q).startswith(lib)) return {};
  llvm::SmallString<128> usr;
  if (index::generateUSRForDecl(fd, usr)) return {};  // true: no USR
  return std::string(usr.str());
}

bool Builder::runs_training_loop(const Stmt* body) {
  if (!body) return false;
  if (auto it = training_loop_.find(body); it != training_loop_.end()) return it->second;
  bool found = false;
  auto loops = nodes<Stmt>(match(stmt(forEachDescendant(stmt(anyOf(forStmt(), cxxForRangeStmt(), whileStmt(), doStmt())).bind("n"))), *body, ctx_));
  for (const Stmt* loop : loops) {
    std::vector<const CallExpr*> calls;
    backward_calls(loop, calls);
    found = !calls.empty() ||
            !match(stmt(hasDescendant(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("step"), ofClass(isSameOrDerivedFrom("::torch::optim::Optimizer"))))))), *loop, ctx_).empty();
    if (found) break;
  }
  training_loop_[body] = found;
  return found;
}

const CXXMethodDecl* Builder::recovered_method(const CallExpr* call) {
  auto* rec = call->getCallee() ? dyn_cast<RecoveryExpr>(call->getCallee()->IgnoreParens()) : nullptr;
  if (!rec || rec->subExpressions().size() != 1) return nullptr;
  const Expr* object = rec->subExpressions()[0];
  if (!object || object->isTypeDependent()) return nullptr;
  QualType t = object->getType();
  if (t->isPointerType()) t = t->getPointeeType();
  const CXXRecordDecl* rd = t->getAsCXXRecordDecl();
  if (!rd || !rd->hasDefinition() || rd->isDependentContext()) return nullptr;
  rd = rd->getDefinition();
  // The member's name: the identifier token that ends the callee (`agent.act`, `p->act`).
  SourceLocation end = rec->getEndLoc();
  if (end.isInvalid() || end.isMacroID() || end == object->getEndLoc()) return nullptr;
  Token tok;
  if (Lexer::getRawToken(end, tok, sm_, lo_, /*IgnoreWhiteSpace=*/false) || !tok.is(tok::raw_identifier)) return nullptr;
  IdentifierInfo& name = ctx_.Idents.get(tok.getRawIdentifier());
  const CXXMethodDecl* found = nullptr;
  for (const NamedDecl* d : rd->lookup(DeclarationName(&name))) {
    auto* m = dyn_cast<CXXMethodDecl>(d);
    if (!m || found) return nullptr;  // not a method, or overloads
    found = m;
  }
  return found;
}

std::string Builder::cross_file_candidate(const Stmt* s) {
  const FunctionDecl* fn = enclosing_function(DynTypedNode::create(*s));
  if (!fn || fn->isMain() || !fn->getBody() || runs_training_loop(fn->getBody())) return {};
  index_call_sites();
  if (escaped_.count(fn->getCanonicalDecl())) return {};
  return function_key(fn);
}

bool Builder::in_step_function(const Stmt* s) {
  const FunctionDecl* fn = enclosing_function(DynTypedNode::create(*s));
  if (!fn) return false;
  // Asked once per creation moved outside a loop: decided once per function.
  auto [it, fresh] = step_functions_.try_emplace(fn, false);
  if (fresh) it->second = is_step_function(fn);
  return it->second;
}

bool Builder::is_step_function(const FunctionDecl* fn) {
  if (fn->isMain() || !fn->getBody() || runs_training_loop(fn->getBody())) return false;
  auto once_per_call = [&](const Stmt* c) {
    return !enclosing_loop(c) && enclosing_function(DynTypedNode::create(*c)) == fn;
  };
  std::vector<const CallExpr*> calls;
  backward_calls(fn->getBody(), calls);
  if (std::none_of(calls.begin(), calls.end(), once_per_call)) return false;
  // And it updates the parameters: an optimizer's step() once per call too. A function that
  // only back-propagates (an autograd demo printing gradients) is no training step.
  auto steps = nodes<CXXMemberCallExpr>(match(stmt(forEachDescendant(cxxMemberCallExpr(callee(cxxMethodDecl(
      hasName("step"), ofClass(isSameOrDerivedFrom("::torch::optim::Optimizer"))))).bind("n"))), *fn->getBody(), ctx_));
  return std::any_of(steps.begin(), steps.end(), once_per_call);
}

void Builder::collect_cross_file(FileFacts& f) {
  std::set<std::string> in_loop;
  std::set<std::pair<std::string, std::string>> calls;
  for (const CallExpr* call : nodes<CallExpr>(GPULINT_MATCH(callExpr()))) {
    if (!offset(call->getBeginLoc())) continue;  // written in this file
    const FunctionDecl* target = call->getDirectCallee();
    if (!target) target = recovered_method(call);
    std::string callee = function_key(target);
    if (callee.empty()) continue;
    if (enclosing_loop(call)) {
      in_loop.insert(callee);
      continue;
    }
    const FunctionDecl* caller = enclosing_function(DynTypedNode::create(*call));
    if (!caller || caller->isMain() || !caller->getBody() || runs_training_loop(caller->getBody())) continue;
    std::string key = function_key(caller);
    if (!key.empty() && key != callee) calls.insert({key, callee});
  }
  f.cross_file.called_in_loop.assign(in_loop.begin(), in_loop.end());
  f.cross_file.calls.assign(calls.begin(), calls.end());
}

void Builder::collect_training_signals() {
  auto backward = GPULINT_MATCH(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("backward"), ofClass(hasName("::at::Tensor"))))));
  auto step = GPULINT_MATCH(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("step"), ofClass(isSameOrDerivedFrom("::torch::optim::Optimizer"))))));
  auto free_backward = GPULINT_MATCH(callExpr(callee(functionDecl(hasName("::torch::autograd::backward")))));
  // A program trains when a loss is back-propagated or an optimizer steps (RULES.md, DEV001);
  // an optimizer that is only constructed does not train anything.
  trains_ = !backward.empty() || !step.empty() || !free_backward.empty();
  if (!trains_) {
    // Unless the code that would step it is code clang could not keep: a range-for over a
    // loader whose dataset type comes from a missing header is dropped from the AST, body
    // (backward() and step()) and all. An optimizer built over a module's parameters in a
    // function that holds such broken code (an invalid declaration, an expression with
    // errors) counts as stepped there; in a function clang parsed whole, it is not.
    auto optimizer_built = nodes<CXXConstructExpr>(GPULINT_MATCH(cxxConstructExpr(
        hasDeclaration(cxxConstructorDecl(ofClass(isSameOrDerivedFrom("::torch::optim::Optimizer")))),
        hasDescendant(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("parameters"), ofClass(isSameOrDerivedFrom("::torch::nn::Module")))))))));
    for (const CXXConstructExpr* c : optimizer_built) {
      const FunctionDecl* fn = enclosing_function(DynTypedNode::create(*c));
      if (fn && fn->getBody() && holds_dropped_code(fn->getBody())) trains_ = true;
    }
  }

  auto cuda_const = GPULINT_MATCH(declRefExpr(to(varDecl(hasAnyName("::c10::kCUDA")))));
  auto cuda_enum = GPULINT_MATCH(declRefExpr(to(enumConstantDecl(hasName("::c10::DeviceType::CUDA")))));
  auto cuda_query = GPULINT_MATCH(callExpr(callee(functionDecl(hasAnyName("::torch::cuda::is_available", "::torch::cuda::device_count", "::torch::cuda::cudnn_is_available")))));
  auto cuda_method = GPULINT_MATCH(cxxMemberCallExpr(callee(cxxMethodDecl(hasName("cuda"), anyOf(ofClass(hasName("::at::Tensor")), ofClass(isSameOrDerivedFrom("::torch::nn::Module")))))));
  gpu_intent_ = !cuda_const.empty() || !cuda_enum.empty() || !cuda_query.empty() || !cuda_method.empty();
  if (!gpu_intent_) {
    // torch::Device device("cuda:0")
    for (const CXXConstructExpr* c : nodes<CXXConstructExpr>(GPULINT_MATCH(cxxConstructExpr(hasDeclaration(cxxConstructorDecl(ofClass(hasName("::c10::Device"))))))))
      if (device_value(c, ctx_).type == DeviceValue::Type::Cuda) gpu_intent_ = true;
  }

  // Tensor variables assigned after their declaration: `loss = criterion(out, y);`
  for (const CXXOperatorCallExpr* op : nodes<CXXOperatorCallExpr>(GPULINT_MATCH(cxxOperatorCallExpr(hasOverloadedOperatorName("="), hasArgument(0, ignoringParenImpCasts(declRefExpr(to(varDecl(hasType(hasUnqualifiedDesugaredType(recordType(hasDeclaration(cxxRecordDecl(hasName("::at::Tensor")))))))))))))))
    if (auto* vd = root_var(op->getArg(0)); vd && op->getNumArgs() == 2) assignments_[vd].push_back(op->getArg(1));
  // Tensor data members assigned: `mu_ = torch::tanh(...)`, `this->hidden_ = ...`.
  for (const CXXOperatorCallExpr* op : nodes<CXXOperatorCallExpr>(GPULINT_MATCH(cxxOperatorCallExpr(hasOverloadedOperatorName("="), hasArgument(0, ignoringParenImpCasts(memberExpr(member(fieldDecl(hasType(hasUnqualifiedDesugaredType(recordType(hasDeclaration(cxxRecordDecl(hasName("::at::Tensor")))))))))))))))
    if (const FieldDecl* fd = member_field(op->getArg(0)); fd && op->getNumArgs() == 2)
      field_assignments_[fd->getCanonicalDecl()].push_back(op->getArg(1));
  // Tuple variables assigned after their declaration: `av = ac->forward(s);`.
  for (const CXXOperatorCallExpr* op : nodes<CXXOperatorCallExpr>(GPULINT_MATCH(cxxOperatorCallExpr(hasOverloadedOperatorName("="), hasArgument(0, ignoringParenImpCasts(declRefExpr(to(varDecl(hasType(hasUnqualifiedDesugaredType(recordType(hasDeclaration(classTemplateSpecializationDecl(hasName("::std::tuple")))))))))))))))
    if (auto* vd = root_var(op->getArg(0)); vd && op->getNumArgs() == 2) tuple_assignments_[vd].push_back(op->getArg(1));
}

std::vector<const CallExpr*> Builder::unresolved_loader_calls() {
  std::vector<const CallExpr*> out;
  for (const CallExpr* c : nodes<CallExpr>(GPULINT_MATCH(callExpr(callee(expr(ignoringParenImpCasts(unresolvedLookupExpr()))))))) {
    auto* ule = dyn_cast<UnresolvedLookupExpr>(c->getCallee()->IgnoreParenImpCasts());
    if (!ule || ule->getNumDecls() == 0) continue;
    bool all = true;
    for (const NamedDecl* d : ule->decls())
      all = all && has_qualified_name(d->getUnderlyingDecl(), "torch::data::make_data_loader");
    if (all) out.push_back(c);
  }
  return out;
}

Builder::RecoveredOptions Builder::recovered_options(const CallExpr* call) {
  RecoveredOptions out;
  auto* ule = dyn_cast<UnresolvedLookupExpr>(call->getCallee()->IgnoreParenImpCasts());
  if (!ule) return out;
  const unsigned n = call->getNumArgs();
  std::optional<unsigned> index;
  for (const NamedDecl* d : ule->decls()) {
    const FunctionDecl* fd = d->getUnderlyingDecl()->getAsFunction();
    if (!fd || n > fd->getNumParams() || n < fd->getMinRequiredArguments()) continue;  // not viable
    std::optional<unsigned> here;
    for (unsigned i = 0; i < fd->getNumParams(); ++i)
      if (has_qualified_name(record_of(fd->getParamDecl(i)->getType()), "torch::data::DataLoaderOptions")) here = i;
    if (!here || (index && *index != *here)) return out;
    index = here;
  }
  if (!index) return out;
  if (*index >= n) {
    out.kind = RecoveredOptions::Kind::Defaulted;
    return out;
  }
  const Expr* a = call->getArg(*index);
  out.argument = a;
  if (!a->isTypeDependent() && has_qualified_name(record_of(a->getType()), "torch::data::DataLoaderOptions"))
    out.kind = RecoveredOptions::Kind::Options;  // read like any options expression
  else if (!a->isTypeDependent() && !a->containsErrors() && a->getType()->isIntegralOrUnscopedEnumerationType() &&
           !a->getType()->isBooleanType())
    out.kind = RecoveredOptions::Kind::BatchSize;
  return out;
}

// DL001: torch::data::make_data_loader(dataset[, sampler], options), options a
// torch::data::DataLoaderOptions however it was written.
void Builder::collect_loaders(FileFacts& f) {
  auto calls = nodes<CallExpr>(GPULINT_MATCH(callExpr(callee(functionDecl(hasName("::torch::data::make_data_loader"))))));
  for (const CallExpr* c : unresolved_loader_calls()) calls.push_back(c);
  std::set<uint32_t> seen_offsets;  // one site per written call (template instantiations repeat it)
  for (const CallExpr* call : calls) {
    auto callee_expr = strip(call->getCallee());
    SourceRange callee_sr = callee_expr->getSourceRange();
    if (auto* dre = dyn_cast<DeclRefExpr>(callee_expr))
      callee_sr = SourceRange(dre->getBeginLoc(), dre->getNameInfo().getEndLoc());
    if (auto* ule = dyn_cast<UnresolvedLookupExpr>(callee_expr))
      callee_sr = SourceRange(ule->getBeginLoc(), ule->getNameInfo().getEndLoc());
    auto callee_r = range(callee_sr);
    auto call_r = range(call->getSourceRange());
    if (!callee_r || !call_r || !seen_offsets.insert(callee_r->start).second) continue;

    LoaderSite site;
    site.kind = LoaderSite::Kind::LibTorchDataLoader;
    site.call = *call_r;
    site.callee = *callee_r;
    site.pin_memory.alternatives = {Value::absent()};

    // How the fix sets the workers: replace a written value, append `.workers(N)` to an
    // options expression, wrap a batch size converted to options, add an options argument,
    // or add the statement `options.workers(N);` after the options' declaration.
    enum class FixKind { None, ReplaceValue, AppendCall, WrapConversion, AddArgument, AppendStatement };
    // The site's fix, built once for every path: the edit is validated now (as a clang
    // Replacement; the AST is gone when the rule asks) and the rule supplies the value.
    // `wrapped`: the converted argument's text (WrapConversion); `statement_prefix`:
    // "\n<indent>options.workers(" (AppendStatement).
    auto set_fix = [&](FixKind kind, uint32_t start, uint32_t end, const std::string& wrapped,
                       const std::string& statement_prefix) {
      std::string prefix, suffix;
      switch (kind) {
        case FixKind::ReplaceValue: break;
        case FixKind::AppendCall: prefix = ".workers("; suffix = ")"; break;
        case FixKind::WrapConversion: prefix = "torch::data::DataLoaderOptions(" + wrapped + ").workers("; suffix = ")"; break;
        case FixKind::AddArgument: prefix = ", torch::data::DataLoaderOptions().workers("; suffix = ")"; break;
        case FixKind::AppendStatement: prefix = statement_prefix; suffix = ");"; break;
        case FixKind::None: return;
      }
      if (std::optional<Edit> base = edit(start, end, prefix + "N" + suffix))
        site.set_arguments = workers_setter(*base, prefix, suffix);
    };

    const Expr* opt_arg = nullptr;
    for (const Expr* a : call->arguments())
      if (has_qualified_name(record_of(a->getType()), "torch::data::DataLoaderOptions")) opt_arg = a;
    if (!call->getDirectCallee()) {
      // A call clang could not resolve: its options argument is found through the candidates.
      RecoveredOptions ro = recovered_options(call);
      if (ro.kind == RecoveredOptions::Kind::Defaulted || ro.kind == RecoveredOptions::Kind::BatchSize) {
        site.num_workers.alternatives = {Value::absent()};
        site.num_workers.origin = ValueOrigin::Absent;
        if (ro.kind == RecoveredOptions::Kind::Defaulted) {
          if (auto rp = offset(call->getRParenLoc())) set_fix(FixKind::AddArgument, *rp, *rp, {}, {});
        } else if (auto r = range(ro.argument->getSourceRange())) {
          set_fix(FixKind::WrapConversion, r->start, r->end, text(*r), {});
        }
        f.loaders.push_back(std::move(site));
        continue;
      }
      opt_arg = ro.kind == RecoveredOptions::Kind::Options ? ro.argument : nullptr;
    }
    if (!opt_arg) {
      site.num_workers = ArgumentFact{};  // unknown
      f.loaders.push_back(std::move(site));
      continue;
    }

    FixKind fix = FixKind::None;
    uint32_t fix_start = 0, fix_end = 0;
    std::string wrapped;  // the converted argument's text (WrapConversion)
    std::string statement_prefix;  // "\n<indent>options.workers(" (AppendStatement)

    std::vector<Value> values;
    bool unknown = false;
    ValueOrigin origin = ValueOrigin::Absent;
    Range written{};

    auto eval = [&](const Expr* v) -> Value {
      Expr::EvalResult r;
      if (!v->isValueDependent() && v->EvaluateAsInt(r, ctx_)) return Value::integer(r.Val.getInt().getExtValue());
      return Value::unknown();
    };
    // Reads a DataLoaderOptions expression: `64` (converted), `DataLoaderOptions()`,
    // `DataLoaderOptions(64).workers(4)`, a variable (its initializer and later `.workers()`
    // calls on it), a default argument.
    std::function<void(const Expr*, bool, int)> read = [&](const Expr* e, bool outermost, int depth) {
      if (depth > 32) { unknown = true; return; }
      const Expr* s = e->IgnoreImplicit()->IgnoreParens();
      if (auto* dflt = dyn_cast<CXXDefaultArgExpr>(s)) {
        (void)dflt;
        values.push_back(Value::absent());
        if (auto rp = offset(call->getRParenLoc())) { fix = FixKind::AddArgument; fix_start = fix_end = *rp; }
        return;
      }
      s = strip(s);
      if (auto* mc = dyn_cast<CXXMemberCallExpr>(s)) {
        const CXXMethodDecl* m = mc->getMethodDecl();
        if (!m || !has_qualified_name(m->getParent(), "torch::data::DataLoaderOptions")) { unknown = true; return; }
        if (method_named(m, "workers") && mc->getNumArgs() == 1) {
          Value v = eval(mc->getArg(0));
          if (v.kind == Value::Kind::Unknown) unknown = true;
          values.push_back(v);
          origin = ValueOrigin::Keyword;
          if (auto r = range(mc->getArg(0)->getSourceRange())) {
            written = *r;
            fix = FixKind::ReplaceValue;
            fix_start = r->start;
            fix_end = r->end;
          }
          return;  // the last `.workers()` in a chain wins
        }
        if (outermost) {
          if (auto r = range(mc->getSourceRange())) { fix = FixKind::AppendCall; fix_start = fix_end = r->end; }
        }
        read(mc->getImplicitObjectArgument(), false, depth + 1);
        return;
      }
      if (auto* c = dyn_cast<CXXConstructExpr>(s)) {
        if (!has_qualified_name(record_of(c->getType()), "torch::data::DataLoaderOptions")) { unknown = true; return; }
        values.push_back(Value::absent());
        if (!outermost) return;
        if (isa<CXXTemporaryObjectExpr>(c) || c->getParenOrBraceRange().isValid()) {
          if (auto r = range(c->getSourceRange())) { fix = FixKind::AppendCall; fix_start = fix_end = r->end; }
        } else if (c->getNumArgs() == 1) {
          // `make_data_loader(ds, 64)`: 64 converts to DataLoaderOptions(64).
          if (auto r = range(c->getArg(0)->getSourceRange())) {
            fix = FixKind::WrapConversion;
            fix_start = r->start;
            fix_end = r->end;
            wrapped = text(*r);
          }
        }
        return;
      }
      if (auto* uc = dyn_cast<CXXUnresolvedConstructExpr>(s)) {
        // `DataLoaderOptions(batch_size)` whose argument's type clang could not work out (it
        // comes from a missing header). DataLoaderOptions has one single-argument constructor
        // besides copy and move, DataLoaderOptions(size_t batch_size): decided as that one
        // (a copy of other options spelled as a functional cast is not how LibTorch code
        // passes them). More arguments: not a constructor it has, unknown.
        if (!has_qualified_name(record_of(uc->getTypeAsWritten()), "torch::data::DataLoaderOptions") ||
            uc->getNumArgs() > 1) {
          unknown = true;
          return;
        }
        values.push_back(Value::absent());
        if (outermost)
          if (auto r = range(uc->getSourceRange())) { fix = FixKind::AppendCall; fix_start = fix_end = r->end; }
        return;
      }
      if (auto* fc = dyn_cast<CXXFunctionalCastExpr>(s)) {
        // DataLoaderOptions(64) written as a functional cast.
        values.push_back(Value::absent());
        if (outermost)
          if (auto r = range(fc->getSourceRange())) { fix = FixKind::AppendCall; fix_start = fix_end = r->end; }
        return;
      }
      if (auto* d = dyn_cast<DeclRefExpr>(s)) {
        auto* vd = dyn_cast<VarDecl>(d->getDecl());
        if (!vd || !vd->hasLocalStorage() || isa<ParmVarDecl>(vd) || !vd->getInit()) { unknown = true; return; }
        // Every other use of the variable must be a DataLoaderOptions setter call on it (or a
        // copy into a loader): anything else may change it where gpulint does not look.
        const FunctionDecl* fn = dyn_cast_or_null<FunctionDecl>(vd->getParentFunctionOrMethod());
        if (!fn || !fn->getBody()) { unknown = true; return; }
        auto refs = nodes<DeclRefExpr>(match(findAll(declRefExpr(to(varDecl(equalsNode(vd)))).bind("n")), *fn->getBody(), ctx_));
        auto setters = nodes<CXXMemberCallExpr>(match(findAll(cxxMemberCallExpr(on(ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(vd))))))).bind("n")), *fn->getBody(), ctx_));
        std::size_t loader_uses = 0;
        for (const CallExpr* other : calls)
          for (const Expr* a : other->arguments())
            if (root_var(a) == vd) ++loader_uses;
        if (refs.size() != setters.size() + loader_uses) { unknown = true; return; }
        bool had_workers = false;
        for (const CXXMemberCallExpr* mc : setters) {
          const CXXMethodDecl* m = mc->getMethodDecl();
          if (!m || !has_qualified_name(m->getParent(), "torch::data::DataLoaderOptions")) { unknown = true; return; }
          if (method_named(m, "workers") && mc->getNumArgs() == 1) {
            Value v = eval(mc->getArg(0));
            if (v.kind == Value::Kind::Unknown) unknown = true;
            values.push_back(v);
            had_workers = true;
            origin = ValueOrigin::Other;
          }
        }
        std::size_t before = values.size();
        read(vd->getInit(), true, depth + 1);
        FixKind init_fix = fix;
        if (had_workers && values.size() > before && values.back().kind == Value::Kind::Absent) values.pop_back();
        if (had_workers) {
          fix = FixKind::None;
          return;
        }
        // The declaration constructs the options itself (`DataLoaderOptions o(64);`, `o{64}`,
        // `o;`, `o = 64;`): `.workers(N)` cannot follow it, so the fix adds the statement
        // `o.workers(N);` after the declaration.
        fix = FixKind::None;
        auto* ctor = dyn_cast_or_null<CXXConstructExpr>(vd->getInit()->IgnoreImplicit());
        if (ctor && !isa<CXXTemporaryObjectExpr>(ctor) &&
            !(ctor->getConstructor() && ctor->getConstructor()->isCopyOrMoveConstructor())) {
          auto ps = ctx_.getParents(*vd);
          const DeclStmt* ds = ps.empty() ? nullptr : ps[0].get<DeclStmt>();
          bool in_block = false;
          if (ds) {
            auto pp = ctx_.getParents(*ds);
            in_block = !pp.empty() && pp[0].get<CompoundStmt>() != nullptr;
          }
          auto begin = ds ? offset(ds->getBeginLoc()) : std::nullopt;
          auto end = ds ? end_offset(ds->getEndLoc()) : std::nullopt;
          if (in_block && begin && end && vd->getDeclName().isIdentifier()) {
            llvm::StringRef buf = sm_.getBufferData(sm_.getMainFileID());
            std::size_t line_start = buf.rfind('\n', *begin);
            line_start = line_start == llvm::StringRef::npos ? 0 : line_start + 1;
            std::size_t indent_end = line_start;
            while (indent_end < *begin && (buf[indent_end] == ' ' || buf[indent_end] == '\t')) ++indent_end;
            fix = FixKind::AppendStatement;
            fix_start = fix_end = *end;
            statement_prefix = "\n" + buf.substr(line_start, indent_end - line_start).str() + vd->getName().str() + ".workers(";
          }
        } else {
          fix = init_fix;  // a chain or temporary after `=`: `.workers(N)` is appended to it
          if (fix == FixKind::WrapConversion) fix = FixKind::None;
        }
        return;
      }
      unknown = true;
    };
    read(opt_arg, true, 0);

    if (unknown) {
      site.num_workers = ArgumentFact{};
    } else {
      site.num_workers.alternatives = values;
      site.num_workers.origin = origin;
      site.num_workers.written = written;
    }
    set_fix(fix, fix_start, fix_end, wrapped, statement_prefix);
    f.loaders.push_back(std::move(site));
  }
}

// How a function of this file uses one of its parameters that holds a model, followed into
// the functions of this file it hands the parameter to (`train(Net& model, ...)`).
Builder::ParamUse Builder::param_use(const FunctionDecl* fn, unsigned index, int depth) {
  ParamUse use;
  const FunctionDecl* def = nullptr;
  if (!fn || !fn->hasBody(def) || !def || index >= def->getNumParams()) {
    use.escapes = true;
    return use;
  }
  auto key = std::make_pair(def, index);
  if (auto it = param_uses_.find(key); it != param_uses_.end()) return it->second;
  if (depth > 8) {
    use.escapes = true;
    return use;
  }
  param_uses_[key] = use;  // a recursive call sees "nothing yet" (its own uses are counted here)
  const ParmVarDecl* param = def->getParamDecl(index);
  const Stmt* body = def->getBody();
  auto on_param = [&](const Expr* e) { return root_var(e) == param; };
  for (const CXXMemberCallExpr* c : nodes<CXXMemberCallExpr>(match(findAll(cxxMemberCallExpr(callee(cxxMethodDecl(
           hasAnyName("parameters", "named_parameters"), ofClass(isSameOrDerivedFrom("::torch::nn::Module"))))).bind("n")), *body, ctx_)))
    if (on_param(c->getImplicitObjectArgument())) use.trains = true;
  for (const CXXMemberCallExpr* mv : nodes<CXXMemberCallExpr>(match(findAll(cxxMemberCallExpr(callee(cxxMethodDecl(
           hasAnyName("to", "cuda"), ofClass(isSameOrDerivedFrom("::torch::nn::Module"))))).bind("n")), *body, ctx_))) {
    if (!on_param(mv->getImplicitObjectArgument())) continue;
    use.places = true;
    if (!use.device) use.device = placement_device(mv);
  }
  std::map<const VarDecl*, ParamUse> handed;
  merge_calls(body, [&](const Expr* a) { return on_param(a) ? param : nullptr; }, handed, depth);
  if (auto it = handed.find(param); it != handed.end()) {
    const ParamUse& h = it->second;
    use.trains |= h.trains;
    use.escapes |= h.escapes;
    if (h.places) {
      use.places = true;
      if (!use.device) use.device = h.device;
    }
  }
  param_uses_[key] = use;
  return use;
}

// The calls in `body` (nullptr: the translation unit) that receive a model (`model_of(arg)`): into functions of this file
// that have a body (their ParamUse merged into the variable's); a function of this file
// without one, or a constructor of a class of this file, may place it anywhere (escapes).
// Calls of library functions (torch::save(model, …)) neither place nor hide a model. Only a
// portable device (one gpulint spells, valid in the caller's scope) comes back with `places`.
void Builder::merge_calls(const Stmt* body, const std::function<const VarDecl*(const Expr*)>& model_of,
                          std::map<const VarDecl*, ParamUse>& uses, int depth) {
  auto calls = body ? nodes<CallExpr>(match(findAll(callExpr().bind("n")), *body, ctx_))
                    : nodes<CallExpr>(GPULINT_MATCH(callExpr()));
  for (const CallExpr* c : calls) {
    const FunctionDecl* fd = c->getDirectCallee();
    if (!fd || !offset(fd->getLocation())) continue;  // only functions written in this file
    unsigned first = isa<CXXOperatorCallExpr>(c) && isa<CXXMethodDecl>(fd) ? 1 : 0;  // the object is argument 0
    for (unsigned i = first; i < c->getNumArgs(); ++i) {
      const VarDecl* vd = model_of(c->getArg(i));
      if (!vd) continue;
      ParamUse callee = param_use(fd, i - first, depth + 1);
      ParamUse& use = uses[vd];
      use.trains |= callee.trains;
      use.escapes |= callee.escapes;
      if (callee.places) {
        use.places = true;
        if (!use.device && callee.device && callee.device->portable) use.device = callee.device;
      }
    }
  }
  auto constructions = body ? nodes<CXXConstructExpr>(match(findAll(cxxConstructExpr().bind("n")), *body, ctx_))
                            : nodes<CXXConstructExpr>(GPULINT_MATCH(cxxConstructExpr()));
  for (const CXXConstructExpr* c : constructions) {
    const CXXConstructorDecl* ctor = c->getConstructor();
    if (!ctor || !offset(ctor->getLocation()) || ctor->isCopyOrMoveConstructor()) continue;
    for (const Expr* a : c->arguments())
      if (const VarDecl* vd = model_of(a)) uses[vd].escapes = true;
  }
}

// The device a `.to(device)` / `.cuda()` on a model names, usable in a fix: a CUDA device the
// AST decides (`.cuda()`, `torch::kCUDA` however reached, `torch::Device("cuda:1")`), spelled
// by gpulint; else the device variable passed, by its name as written.
std::optional<Builder::PlacedDevice> Builder::placement_device(const CXXMemberCallExpr* mv) {
  PlacedDevice out;
  if (method_named(mv->getMethodDecl(), "cuda")) {
    out.text = "torch::kCUDA";
    out.portable = true;
    return out;
  }
  if (mv->getNumArgs() < 1) return std::nullopt;
  if (std::string s = device_spelling(device_value(mv->getArg(0), ctx_)); !s.empty()) {
    out.text = s;
    out.portable = true;
    return out;
  }
  const Expr* a = strip(mv->getArg(0));
  // `to(device)` with a DeviceType variable: it converts to a Device.
  if (auto* c = dyn_cast<CXXConstructExpr>(a); c && c->getNumArgs() >= 1 && !isa<CXXTemporaryObjectExpr>(c))
    a = strip(c->getArg(0));
  if (auto* d = dyn_cast<DeclRefExpr>(a))
    if (auto* dv = dyn_cast<VarDecl>(d->getDecl()))
      if (auto r = range(a->getSourceRange())) {
        out.text = text(*r);
        out.scope = dyn_cast_or_null<FunctionDecl>(dv->getParentFunctionOrMethod());
        out.var = dv;
        return out;
      }
  return std::nullopt;
}

// DEV001: variables holding a module whose parameters are trained (`x->parameters()` is
// called, here or in a function of this file the model is handed to), and whether `.to(...)`
// / `.cuda()` places them (here or in such a function).
void Builder::collect_models(FileFacts& f) {
  auto local_model = [&](const Expr* e) -> const VarDecl* {
    const VarDecl* vd = root_var(e);
    if (!vd || isa<ParmVarDecl>(vd) || !is_model_type(vd->getType()) || !offset(vd->getLocation())) return nullptr;
    return vd;
  };
  auto params = nodes<CXXMemberCallExpr>(GPULINT_MATCH(cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName("parameters", "named_parameters"), ofClass(isSameOrDerivedFrom("::torch::nn::Module")))))));
  for (const CXXMemberCallExpr* p : params)
    if (const VarDecl* vd = local_model(p->getImplicitObjectArgument())) models_[vd].var = vd;
  auto moves = nodes<CXXMemberCallExpr>(GPULINT_MATCH(cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName("to", "cuda"), ofClass(isSameOrDerivedFrom("::torch::nn::Module")))))));
  // Models handed to functions of this file: trained, placed or hidden there.
  std::map<const VarDecl*, ParamUse> handed;
  merge_calls(nullptr, local_model, handed, -1);
  for (const auto& [vd, h] : handed)
    if (h.trains) models_[vd].var = vd;
  if (models_.empty()) return;
  for (const CXXMemberCallExpr* mv : moves) {
    const VarDecl* vd = root_var(mv->getImplicitObjectArgument());
    auto it = models_.find(vd);
    if (it == models_.end()) continue;
    it->second.placed = true;
    if (!it->second.device) it->second.device = placement_device(mv);
  }
  for (const auto& [vd, h] : handed) {
    auto it = models_.find(vd);
    if (it == models_.end()) continue;
    if (h.places) {
      it->second.placed = true;
      if (!it->second.device && h.device) it->second.device = h.device;
    }
    // Handed to a function gpulint cannot follow: it may be placed there; not decided, silent.
    if (h.escapes) it->second.escapes = true;
  }
  for (auto& [vd, m] : models_) {
    auto r = range(SourceRange(vd->getLocation(), vd->getLocation()));
    if (!r) continue;
    if (!(m.placed || m.escapes) && on_cpu_fallback_path(DynTypedNode::create(*vd))) continue;
    ModelFact mf;
    mf.binding = *r;
    mf.name = vd->getNameAsString();
    mf.placed = m.placed || m.escapes;
    f.models.push_back(std::move(mf));
  }
}

// A module held in a data member of a class whose whole code this translation unit holds is a
// model when its parameters are trained (`policy->parameters()`, e.g. in the initializer of a
// member optimizer) and placed when the class moves it (`policy->to(device)`). The member must
// be private (or the class final and the member protected), the class must have no friends,
// and every method the class declares must have its body in this translation unit — then the
// class's own methods and constructor initializers are all the code that can touch the member,
// and all of it is read here, wherever it is written (an inline method in the header too). A use
// of the member other than its own methods (`->parameters()`, `->forward()`, `->to()`, `->eval()`,
// ...) or torch::save / torch::load — handing it to a function — may place it: not decided,
// silent. Reported at the member's initializer in a constructor of this file (its creation), else
// at the member's declaration when this file holds it.
void Builder::collect_member_models(FileFacts& f) {
  struct MemberModel {
    bool trained = false, placed = false, escapes = false;
  };
  // How one use of a member is read: the call it is the object of, through the holder's
  // operator->.
  auto classify_use = [&](const MemberExpr* me, MemberModel& mm) {
    DynTypedNodeList parents = ctx_.getParents(*me);
    for (int i = 0; i < 6 && !parents.empty(); ++i) {
      const Stmt* p = parents[0].get<Stmt>();
      if (!p) break;
      if (isa<ImplicitCastExpr>(p) || isa<ParenExpr>(p) || isa<MaterializeTemporaryExpr>(p) ||
          (isa<CXXOperatorCallExpr>(p) && cast<CXXOperatorCallExpr>(p)->getOperator() == OO_Arrow)) {
        parents = ctx_.getParents(*p);
        continue;
      }
      break;
    }
    const Stmt* user = parents.empty() ? nullptr : parents[0].get<Stmt>();
    if (auto* member_ref = user ? dyn_cast<MemberExpr>(user) : nullptr) {
      DynTypedNodeList pp = ctx_.getParents(*member_ref);
      const Stmt* call_parent = pp.empty() ? nullptr : pp[0].get<Stmt>();
      auto* mc = call_parent ? dyn_cast<CXXMemberCallExpr>(call_parent) : nullptr;
      if (mc && mc->getMethodDecl() && mc->getMethodDecl()->getDeclName().isIdentifier()) {
        llvm::StringRef name = mc->getMethodDecl()->getName();
        if (name == "parameters" || name == "named_parameters") { mm.trained = true; return; }
        if (name == "to" || name == "cuda") { mm.placed = true; return; }
        if (name == "forward" || name == "eval" || name == "train" || name == "zero_grad" || name == "is_training" ||
            name == "named_modules" || name == "modules" || name == "children" || name == "pretty_print")
          return;
      }
    }
    // A call of the module itself (`policy(x)`: ModuleHolder's operator()).
    if (auto* oc = user ? dyn_cast<CXXOperatorCallExpr>(user) : nullptr; oc && oc->getOperator() == OO_Call) return;
    // Saved or loaded: torch::save / torch::load read and write its parameters in place.
    if (auto* call = user ? dyn_cast<CallExpr>(user) : nullptr) {
      const FunctionDecl* callee = call->getDirectCallee();
      if (callee && (has_qualified_name(callee, "torch::save") || has_qualified_name(callee, "torch::load"))) return;
    }
    mm.escapes = true;
  };
  auto uses_in = [&](const Stmt* root, const FieldDecl* fd, MemberModel& mm) {
    for (const MemberExpr* me : nodes<MemberExpr>(match(findAll(memberExpr().bind("n")), *root, ctx_)))
      if (isa<CXXThisExpr>(strip(me->getBase())) && me->getMemberDecl()->getCanonicalDecl() == fd) classify_use(me, mm);
  };
  // The candidates: members of a module type whose parameters this file's code trains.
  std::set<const FieldDecl*> trained;
  for (const MemberExpr* me : nodes<MemberExpr>(GPULINT_MATCH(memberExpr(member(fieldDecl()))))) {
    auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
    if (!fd || !isa<CXXThisExpr>(strip(me->getBase())) || !is_model_type(fd->getType())) continue;
    MemberModel probe;
    classify_use(me, probe);
    if (probe.trained) trained.insert(cast<FieldDecl>(fd->getCanonicalDecl()));
  }
  for (const FieldDecl* fd : trained) {
    auto* rd = dyn_cast<CXXRecordDecl>(fd->getParent());
    if (!rd || !rd->hasDefinition() || rd->isDependentContext() || rd->friend_begin() != rd->friend_end()) continue;
    bool final = rd->hasAttr<FinalAttr>();
    if (fd->getAccess() == AS_public || (fd->getAccess() == AS_protected && !final)) continue;
    // Every use in the class's code: each method's body and each constructor's initializers.
    MemberModel mm;
    bool closed = true;
    for (const CXXMethodDecl* m : rd->methods()) {
      if (m->isDeleted() || m->isDefaulted() || m->isPure() || m->isImplicit()) continue;
      const FunctionDecl* def = nullptr;
      if (!m->hasBody(def) || !def || !def->getBody()) { closed = false; break; }
      uses_in(def->getBody(), fd, mm);
      if (auto* ctor = dyn_cast<CXXConstructorDecl>(def))
        for (const CXXCtorInitializer* init : ctor->inits())
          if (init->getInit()) uses_in(init->getInit(), fd, mm);
    }
    if (!closed || !mm.trained || mm.placed || mm.escapes) continue;
    // The initializer that builds it in a constructor of this file, else its declaration.
    std::optional<Range> where;
    for (const CXXConstructorDecl* ctor : rd->ctors()) {
      const FunctionDecl* def = nullptr;
      if (!ctor->hasBody(def) || !def) continue;
      for (const CXXCtorInitializer* init : cast<CXXConstructorDecl>(def)->inits())
        if (init->isMemberInitializer() && init->getMember()->getCanonicalDecl() == fd && init->isWritten())
          if (!where) where = range(SourceRange(init->getSourceLocation(), init->getSourceLocation()));
    }
    if (!where) where = range(SourceRange(fd->getLocation(), fd->getLocation()));
    if (!where) continue;
    if (on_cpu_fallback_path(DynTypedNode::create(*fd))) continue;
    ModelFact mf;
    mf.binding = *where;
    mf.name = fd->getNameAsString();
    mf.placed = false;
    f.models.push_back(std::move(mf));
  }
}

// The model a module call inside a function runs, when it is a parameter of that function:
// placed when the function places it itself, or when every call of the function in this file
// hands it a model placed on the GPU. nullptr when that is not known.
const Builder::Model* Builder::parameter_model(const ParmVarDecl* param) {
  if (auto it = param_models_.find(param); it != param_models_.end()) return it->second ? &*it->second : nullptr;
  param_models_[param] = std::nullopt;
  auto* fn = dyn_cast_or_null<FunctionDecl>(param->getParentFunctionOrMethod());
  if (!fn || !is_model_type(param->getType())) return nullptr;
  unsigned index = param->getFunctionScopeIndex();
  ParamUse own = param_use(fn, index, 0);
  Model m;
  m.var = param;
  if (own.places) {
    m.placed = true;
    m.device = own.device;
    param_models_[param] = m;
    return &*param_models_[param];
  }
  const FunctionDecl* def = nullptr;
  if (!fn->hasBody(def)) return nullptr;
  bool any = false;
  // The function's own parameter that every call hands the caller's device variable (the
  // MNIST example's `train(..., Net& model, torch::Device device, ...)`): the fix can name it.
  std::optional<unsigned> device_param;
  bool device_param_known = true;
  index_call_sites();
  auto sites = call_sites_.find(def->getCanonicalDecl());
  if (sites == call_sites_.end()) return nullptr;
  for (const CallExpr* c : sites->second) {
    const FunctionDecl* fd = c->getDirectCallee();
    if (!fd) continue;
    unsigned first = isa<CXXOperatorCallExpr>(c) && isa<CXXMethodDecl>(fd) ? 1 : 0;
    if (index + first >= c->getNumArgs()) return nullptr;
    const Expr* a = c->getArg(index + first);
    const VarDecl* vd = root_var(a);
    const Model* caller = nullptr;
    if (auto* pv = dyn_cast_or_null<ParmVarDecl>(vd)) caller = parameter_model(pv);
    else if (auto it = models_.find(vd); it != models_.end()) caller = &it->second;
    if (!caller || !caller->placed) return nullptr;
    any = true;
    if (!m.device && caller->device && caller->device->portable) m.device = caller->device;
    const VarDecl* caller_device_var = caller->device ? caller->device->var : nullptr;
    std::optional<unsigned> here;
    for (unsigned k = 0; caller_device_var && k + first < c->getNumArgs() && k < def->getNumParams(); ++k) {
      const Expr* da = strip(c->getArg(k + first));
      if (isa<DeclRefExpr>(da) && root_var(da) == caller_device_var) here = k;
    }
    if (!here || (device_param && device_param != here)) device_param_known = false;
    device_param = here;
  }
  if (!any) return nullptr;
  if (!m.device && device_param_known && device_param) {
    const ParmVarDecl* dp = def->getParamDecl(*device_param);
    // Only when no local of the function shadows the parameter's name.
    bool shadowed = false;
    if (dp->getDeclName().isIdentifier() && def->getBody()) {
      for (const VarDecl* v : nodes<VarDecl>(match(findAll(varDecl().bind("n")), *def->getBody(), ctx_)))
        shadowed |= v != dp && v->getDeclName().isIdentifier() && v->getName() == dp->getName();
      if (!shadowed) {
        m.device = PlacedDevice{dp->getNameAsString(), false, def, dp};
      }
    }
  }
  m.placed = true;
  param_models_[param] = m;
  return &*param_models_[param];
}

// DEV002: `for (auto& batch : *loader)` whose `batch.data` / `batch.target` reach a model placed
// on the GPU (or its loss) without `.to(device)`.
void Builder::collect_unmoved_batches(FileFacts& f) {
  if (!gpu_intent_) return;
  auto loops = nodes<CXXForRangeStmt>(GPULINT_MATCH(cxxForRangeStmt()));
  std::set<uint32_t> seen;
  for (const CXXForRangeStmt* loop : loops) {
    const CXXRecordDecl* range_rd = record_of(loop->getRangeInit()->getType());
    if (!derives_from(range_rd, "torch::data::DataLoaderBase")) continue;
    const VarDecl* batch = loop->getLoopVariable();
    if (!batch || !derives_from(record_of(batch->getType()), "torch::data::Example")) continue;
    const Stmt* body = loop->getBody();
    // The batch's fields as written: `batch.data`, unless immediately moved.
    auto is_field = [&](const Expr* e) -> const MemberExpr* {
      auto* me = dyn_cast<MemberExpr>(strip(e));
      if (!me || root_var(me->getBase()) != batch) return nullptr;
      auto* fd = dyn_cast<FieldDecl>(me->getMemberDecl());
      if (!fd || !is_tensor_type(fd->getType())) return nullptr;
      return me;
    };
    // Locals bound to an unmoved field and never reassigned.
    std::set<const VarDecl*> unmoved_vars;
    for (const VarDecl* vd : nodes<VarDecl>(match(stmt(forEachDescendant(varDecl(hasLocalStorage()).bind("n"))), *body, ctx_)))
      if (vd->getInit() && is_tensor_type(vd->getType()) && is_field(vd->getInit()) && assignments_[vd].empty())
        unmoved_vars.insert(vd);
    std::function<bool(const Expr*)> unmoved = [&](const Expr* a) -> bool {
      if (is_field(a)) return true;
      const Expr* s = strip(a);
      // A view of an unmoved batch tensor is on the CPU too: `images.view({-1, 784})`,
      // `batch.data.flatten(1)`, `labels.squeeze()`.
      if (auto* mc = dyn_cast<CXXMemberCallExpr>(s)) {
        if (is_aliasing_tensor_method(mc->getMethodDecl())) return unmoved(mc->getImplicitObjectArgument());
        return false;
      }
      if (auto* d = dyn_cast<DeclRefExpr>(s))
        if (auto* vd = dyn_cast<VarDecl>(d->getDecl())) return unmoved_vars.count(vd) > 0;
      return false;
    };
    // Consumers: placed models, loss functions and loss modules.
    std::vector<std::pair<const Expr*, const char*>> consumers;
    const Model* model_used = nullptr;
    for (const Expr* e : nodes<Expr>(match(findAll(expr(anyOf(cxxMemberCallExpr(), cxxOperatorCallExpr(), callExpr())).bind("n")), *body, ctx_))) {
      if (is_loss_module_call(e) || is_loss_function_call(e)) {
        consumers.push_back({e, "loss"});
      } else if (is_module_call(e)) {
        const Expr* obj = object_of(strip(e));
        const VarDecl* mv = root_var(obj);
        const Model* m = nullptr;
        if (auto* pv = dyn_cast_or_null<ParmVarDecl>(mv)) m = parameter_model(pv);
        else if (auto it = models_.find(mv); it != models_.end()) m = &it->second;
        if (!m || !m->placed) continue;
        model_used = m;
        consumers.push_back({e, "model"});
      }
    }
    if (!model_used) continue;  // no model on the GPU in this loop
    for (auto [e, kind] : consumers) {
      auto* call = dyn_cast<CallExpr>(strip(e));
      if (!call) continue;
      unsigned first = isa<CXXOperatorCallExpr>(call) ? 1 : 0;
      for (unsigned i = first; i < call->getNumArgs(); ++i) {
        const Expr* a = call->getArg(i);
        if (!unmoved(a)) continue;
        auto r = range(strip(a)->getSourceRange());
        if (!r || !seen.insert(r->start).second) continue;
        if (on_cpu_fallback_path(DynTypedNode::create(*e))) continue;  // the model is on the CPU here
        UnmovedBatchUse u;
        u.argument = *r;
        u.variable = text(*r);
        u.consumer = kind;
        // The fix uses the model's own device expression, when it is visible here.
        const Model& m = *model_used;
        const FunctionDecl* here = nullptr;
        {
          // the function holding the loop
          const Stmt* s = loop;
          for (int k = 0; s && k < 512; ++k) {
            auto ps = ctx_.getParents(*s);
            if (ps.empty()) break;
            if (auto* fd = ps[0].get<FunctionDecl>()) { here = fd; break; }
            s = ps[0].get<Stmt>();
            if (!s) {
              if (auto* vd = ps[0].get<VarDecl>()) {
                auto pp = ctx_.getParents(*vd);
                s = pp.empty() ? nullptr : pp[0].get<Stmt>();
              }
            }
          }
        }
        if (m.device && (m.device->portable || m.device->scope == nullptr || m.device->scope == here)) {
          if (auto ed = edit(r->end, r->end, ".to(" + m.device->text + ")")) u.fix.push_back(*ed);
        }
        f.unmoved_batches.push_back(std::move(u));
      }
    }
  }
}

// DEV003: `torch::zeros(...).to(device)` / `.cuda()` inside a loop.
void Builder::collect_created_then_moved(FileFacts& f) {
  auto factory = callExpr(callee(functionDecl(hasAnyName(
      "::torch::zeros", "::torch::ones", "::torch::empty", "::torch::full", "::torch::rand",
      "::torch::randn", "::torch::randint", "::torch::randperm", "::torch::arange", "::torch::linspace",
      "::torch::eye", "::torch::tensor"))));
  // Not torch::from_blob: it wraps memory the program already holds on the host, so it cannot
  // be created on the device (a device option would declare that pointer device memory).
  // A view between the creation and the move (`torch::tensor(v).reshape({n, 4})`), or an
  // in-place fill of the fresh tensor (`torch::empty({n}).uniform_(0.8, 1.0)`: the random
  // numbers are drawn on the host), is still the CPU tensor being moved.
  static const std::vector<llvm::StringRef> kBetween = [] {
    std::vector<llvm::StringRef> v(std::begin(kAliasingTensorMethods), std::end(kAliasingTensorMethods));
    for (llvm::StringRef fill : {"uniform_", "normal_", "fill_", "zero_", "random_", "bernoulli_", "exponential_"})
      v.push_back(fill);
    return v;
  }();
  auto view = cxxMemberCallExpr(
      callee(cxxMethodDecl(hasAnyName(llvm::ArrayRef<llvm::StringRef>(kBetween)), ofClass(hasName("::at::Tensor")))),
      on(ignoringImplicit(ignoringParens(factory))));
  auto moves = nodes<CXXMemberCallExpr>(GPULINT_MATCH(cxxMemberCallExpr(
      callee(cxxMethodDecl(hasAnyName("to", "cuda"), ofClass(hasName("::at::Tensor")))),
      on(ignoringImplicit(ignoringParens(expr(anyOf(factory, view))))))));
  std::set<uint32_t> seen;
  for (const CXXMemberCallExpr* mv : moves) {
    const Expr* moved = strip(mv->getImplicitObjectArgument());  // the factory call, or the view of it
    const CallExpr* fcall = dyn_cast<CallExpr>(moved);
    if (auto* v = dyn_cast_or_null<CXXMemberCallExpr>(fcall)) fcall = dyn_cast<CallExpr>(strip(v->getImplicitObjectArgument()));
    if (!fcall || isa<CXXMemberCallExpr>(fcall) || !fcall->getDirectCallee()) continue;
    std::string needs_call_in_loop;
    if (!enclosing_loop(mv) && !called_from_loop(DynTypedNode::create(*mv)) && !in_step_function(mv)) {
      needs_call_in_loop = cross_file_candidate(mv);
      if (needs_call_in_loop.empty()) continue;
    }
    bool cuda = method_named(mv->getMethodDecl(), "cuda");
    std::string device;
    if (!cuda) {
      if (mv->getNumArgs() < 1) continue;
      // (strip: before C++17 a by-value argument is an elidable copy of the temporary the
      // conversion builds — `TensorOptions(device)` — not that conversion itself.)
      const Expr* a = strip(mv->getArg(0));
      // Only a device argument (torch::Device / DeviceType), not a dtype or TensorOptions.
      const Expr* inner = a;
      if (auto* c = dyn_cast<CXXConstructExpr>(a); c && c->getNumArgs() >= 1 && !isa<CXXTemporaryObjectExpr>(c))
        inner = c->getArg(0)->IgnoreImplicit()->IgnoreParens();
      QualType t = inner->getType();
      bool is_device = has_qualified_name(record_of(t), "c10::Device");
      if (auto* et = t->getAs<EnumType>()) is_device = has_qualified_name(et->getDecl(), "c10::DeviceType");
      if (!is_device) continue;
      // A move to a device the AST decides is not CUDA (`torch::kCPU`, `torch::Device("cpu")`,
      // kMPS) is not the GPU copy DEV003 is about.
      DeviceValue dv = device_value(a, ctx_);
      if (dv.type == DeviceValue::Type::Cpu || dv.type == DeviceValue::Type::Other) continue;
      auto r = range(inner->getSourceRange());
      if (!r) continue;
      device = text(*r);
    } else {
      device = "torch::kCUDA";
    }
    auto whole = range(mv->getSourceRange());
    auto fr = range(moved->getSourceRange());
    if (!whole || !fr || !seen.insert(whole->start).second) continue;
    CreatedThenMoved c;
    c.expression = *whole;
    c.factory = fcall->getDirectCallee()->getQualifiedNameAsString();
    c.needs_call_in_loop = needs_call_in_loop;
    // torch::tensor of values builds the tensor on the CPU and then moves it to the options'
    // device (torch/csrc/api/include/torch/detail/TensorDataContainer.h, convert_to_tensor):
    // a device option would make the same copy. Reported without a device fix (rule DEV003).
    c.from_data = has_qualified_name(fcall->getDirectCallee(), "torch::tensor");
    // Fix: pass the device to the factory when its TensorOptions parameter is defaulted. A
    // dtype the move also converts to goes along (`.to(device, torch::kHalf)`); a move with
    // other arguments (a memory format) is left alone. torch::from_blob wraps memory the
    // program owns: given a CUDA device it would read that host pointer as device memory, so
    // its copy to the GPU is the right code and has no fix.
    const FunctionDecl* fd = fcall->getDirectCallee();
    std::string dtype;
    bool other_arguments = false;
    for (unsigned i = 1; !cuda && i < mv->getNumArgs(); ++i) {
      const Expr* a = mv->getArg(i)->IgnoreImplicit()->IgnoreParens();
      if (isa<CXXDefaultArgExpr>(a) || isa<CXXBoolLiteralExpr>(a)) continue;  // non_blocking, copy
      const EnumType* et = a->getType()->getAs<EnumType>();
      auto r = range(a->getSourceRange());
      if (i == 1 && et && has_qualified_name(et->getDecl(), "c10::ScalarType") && r) {
        dtype = text(*r);
        continue;
      }
      other_arguments = true;
    }
    bool wraps_memory = has_qualified_name(fd, "torch::from_blob");
    if (!other_arguments && !wraps_memory && fcall->getNumArgs() >= 1 && fd->getNumParams() == fcall->getNumArgs() &&
        isa<CXXDefaultArgExpr>(fcall->getArg(fcall->getNumArgs() - 1)) &&
        has_qualified_name(record_of(fd->getParamDecl(fd->getNumParams() - 1)->getType()), "c10::TensorOptions")) {
      auto rp = offset(fcall->getRParenLoc());
      if (rp) {
        auto add = edit(*rp, *rp, ", torch::TensorOptions().device(" + device + ")" +
                                     (dtype.empty() ? std::string() : ".dtype(" + dtype + ")"));
        auto del = edit(fr->end, whole->end, "");
        if (add && del) c.fix = {*add, *del};
      }
    }
    f.created_then_moved.push_back(std::move(c));
  }
}

const FieldDecl* Builder::kept_in_member(const Stmt* stmt, const Expr* container) {
  const FieldDecl* field = member_field(container);
  if (!field) return nullptr;
  // The object the member belongs to: `this`, or a variable (`state.losses`, `p->losses`).
  const Expr* owner = strip(container);
  for (int i = 0; i < 16 && isa<MemberExpr>(owner); ++i) owner = strip(cast<MemberExpr>(owner)->getBase());
  const Stmt* loop = enclosing_loop(stmt);
  if (!isa<CXXThisExpr>(owner)) {
    // A member of a variable: like the variable itself, kept when declared outside the loop.
    const VarDecl* vd = root_var(owner);
    if (!vd || !loop || inside(vd, loop)) return nullptr;
    return member_consumed(loop, container, stmt) ? nullptr : field;
  }
  const Stmt* scope = nullptr;
  std::vector<const CallExpr*> calls;
  if (loop) backward_calls(loop, calls);
  if (!calls.empty()) {
    scope = loop;  // a training loop
  } else {
    auto* method = dyn_cast_or_null<CXXMethodDecl>(enclosing_function(DynTypedNode::create(*stmt)));
    if (!method || !method->getBody() || isa<CXXConstructorDecl>(method) || isa<CXXDestructorDecl>(method))
      return nullptr;
    const CXXRecordDecl* cls = method->getParent();
    const auto* holder = dyn_cast<CXXRecordDecl>(field->getParent());
    if (!cls || cls->isLambda() || !holder || !cls->hasDefinition() ||
        (cls->getCanonicalDecl() != holder->getCanonicalDecl() && !cls->isDerivedFrom(holder)))
      return nullptr;
    backward_calls(method->getBody(), calls);
    bool once_per_call = false;
    for (const CallExpr* c : calls)
      if (!enclosing_loop(c)) once_per_call = true;
    if (!once_per_call) return nullptr;
    scope = method->getBody();
  }
  if (under_no_grad(stmt) || member_consumed(scope, container, stmt)) return nullptr;
  return field;
}

bool Builder::member_consumed(const Stmt* scope, const Expr* container, const Stmt* except, int depth) {
  if (!scope || depth > 256 || scope == except) return false;
  if (auto* mc = dyn_cast<CXXMemberCallExpr>(scope)) {
    const CXXMethodDecl* m = mc->getMethodDecl();
    if (m && m->getDeclName().isIdentifier() && same_object(mc->getImplicitObjectArgument(), container)) {
      llvm::StringRef n = m->getName();
      if (n == "clear" || n == "swap" || n == "erase" || n == "pop_front" || n == "pop_back" || n == "resize" ||
          n == "assign")
        return true;
    }
  }
  if (auto* op = dyn_cast<CXXOperatorCallExpr>(scope);
      op && op->getOperator() == OO_Equal && op->getNumArgs() == 2 && same_object(op->getArg(0), container) &&
      !names_member(op->getArg(1), container))
    return true;
  if (auto* bo = dyn_cast<BinaryOperator>(scope);
      bo && bo->getOpcode() == BO_Assign && same_object(bo->getLHS(), container) && !names_member(bo->getRHS(), container))
    return true;
  if (is_backward_call(scope)) {
    const auto* call = cast<CallExpr>(scope);
    if (const Expr* object = backward_object(call); object && names_member(object, container)) return true;
    for (const Expr* a : call->arguments())
      if (names_member(a, container)) return true;
  }
  for (const Stmt* c : scope->children())
    if (member_consumed(c, container, except, depth + 1)) return true;
  return false;
}

// `at::cat({total, x}, dim)` / `torch::cat({x, total})`, also on one side of a conditional
// (torch::cat is at::cat: torch/csrc/api/
// include/torch/types.h brings ATen's functions into torch::), the tensor list a braced list of
// two elements one of which is `total` (the variable `total_var`, or the same member
// expression): the other element; null otherwise.
const Expr* Builder::concatenated_onto(const Expr* rhs, const Expr* total, const VarDecl* total_var) {
  // `total = total.defined() ? torch::cat({total, x}) : x`: either side.
  if (auto* co = dyn_cast<ConditionalOperator>(strip(rhs))) {
    if (const Expr* el = concatenated_onto(co->getTrueExpr(), total, total_var)) return el;
    return concatenated_onto(co->getFalseExpr(), total, total_var);
  }
  auto* call = dyn_cast<CallExpr>(strip(rhs));
  if (!call || isa<CXXOperatorCallExpr>(call) || call->getNumArgs() < 1) return nullptr;
  const FunctionDecl* fd = call->getDirectCallee();
  if (!fd || !(has_qualified_name(fd, "at::cat") || has_qualified_name(fd, "torch::cat"))) return nullptr;
  // The TensorList argument: an ArrayRef built from a std::initializer_list of the braced list.
  const InitListExpr* list = nullptr;
  std::vector<const Stmt*> todo = {call->getArg(0)};
  for (int i = 0; i < 16 && !todo.empty() && !list; ++i) {
    const Stmt* n = todo.back();
    todo.pop_back();
    if (!n) continue;
    if (auto* il = dyn_cast<InitListExpr>(n)) { list = il; break; }
    for (const Stmt* c : n->children()) todo.push_back(c);
  }
  if (!list || list->getNumInits() != 2) return nullptr;
  auto is_total = [&](const Expr* e) {
    if (total_var) return isa<DeclRefExpr>(strip(e)) && root_var(e) == total_var;
    return same_object(e, total);
  };
  if (is_total(list->getInit(0))) return list->getInit(1);
  if (is_total(list->getInit(1))) return list->getInit(0);
  return nullptr;
}

// MEM001: `losses.push_back(loss)` / `emplace_back` into a std::vector<at::Tensor>, or
// `total += loss` into an at::Tensor, declared outside the loop, with a graph-attached value.
void Builder::collect_kept_tensors(FileFacts& f) {
  auto appends = nodes<CXXMemberCallExpr>(GPULINT_MATCH(cxxMemberCallExpr(callee(cxxMethodDecl(
      hasAnyName("push_back", "emplace_back", "push_front", "emplace_front"),
      ofClass(hasAnyName("::std::vector", "::std::deque", "::std::list")))))));
  // `total = total + loss`: the running sum written out.
  auto sums = nodes<CXXOperatorCallExpr>(GPULINT_MATCH(cxxOperatorCallExpr(hasOverloadedOperatorName("="),
      callee(cxxMethodDecl(ofClass(hasName("::at::Tensor")))))));
  auto augments = nodes<CXXOperatorCallExpr>(GPULINT_MATCH(cxxOperatorCallExpr(hasAnyOverloadedOperatorName("+=", "-="),
      callee(cxxMethodDecl(ofClass(hasName("::at::Tensor")))))));
  std::set<uint32_t> seen;
  auto consider = [&](const Expr* stmt, const Expr* container, const Expr* kept, KeptGraphTensor::How how) {
    std::string name;
    if (const VarDecl* cv = root_var(container)) {
      const Stmt* loop = enclosing_loop(stmt);
      if (!loop || inside(cv, loop)) return;
      name = cv->getNameAsString();
    } else if (const FieldDecl* fd = kept_in_member(stmt, container)) {
      name = fd->getNameAsString();
    } else {
      return;
    }
    if (!attached(kept)) return;
    auto sr = range(stmt->getSourceRange());
    auto kr = range(strip(kept)->getSourceRange());
    if (!sr || !kr || !seen.insert(sr->start).second) return;
    KeptGraphTensor k;
    k.statement = *sr;
    k.kept = *kr;
    k.container = name;
    k.how = how;
    const Expr* ks = strip(kept);
    bool postfix_ok = isa<DeclRefExpr>(ks) || isa<MemberExpr>(ks) || isa<ParenExpr>(kept->IgnoreImplicit()) ||
                      (isa<CallExpr>(ks) && !isa<CXXOperatorCallExpr>(ks)) ||
                      (isa<CXXOperatorCallExpr>(ks) && (cast<CXXOperatorCallExpr>(ks)->getOperator() == OO_Call ||
                                                        cast<CXXOperatorCallExpr>(ks)->getOperator() == OO_Subscript));
    if (postfix_ok) {
      if (auto e = edit(kr->end, kr->end, ".detach()")) k.fix = {*e};
    } else {
      auto a = edit(kr->start, kr->start, "(");
      auto b = edit(kr->end, kr->end, ").detach()");
      if (a && b) k.fix = {*a, *b};
    }
    f.kept_tensors.push_back(std::move(k));
  };
  for (const CXXMemberCallExpr* a : appends) {
    if (!is_tensor_vector(a->getImplicitObjectArgument()->getType()) || a->getNumArgs() != 1) continue;
    consider(a, a->getImplicitObjectArgument(), a->getArg(0), KeptGraphTensor::How::Append);
  }
  for (const CXXOperatorCallExpr* op : augments) {
    if (op->getNumArgs() != 2) continue;
    const VarDecl* cv = root_var(op->getArg(0));
    const FieldDecl* field = member_field(op->getArg(0));
    if (!(cv && is_tensor_type(cv->getType())) && !(field && is_tensor_type(field->getType()))) continue;
    consider(op, op->getArg(0), op->getArg(1), KeptGraphTensor::How::AugmentedAssign);
  }
  // In a template, an append or a `+=` whose kept value has a dependent type (`auto loss =
  // criterion(model_->forward(x), y)`) is resolved only at instantiation: a call of an
  // unresolved member (`losses_.push_back(loss)`) or a compound assignment of dependent type
  // (`total += loss`). The container's own type is known: a tensor vector / a tensor.
  for (const CallExpr* c : nodes<CallExpr>(GPULINT_MATCH(callExpr(callee(unresolvedMemberExpr()))))) {
    auto* ume = dyn_cast<UnresolvedMemberExpr>(c->getCallee()->IgnoreParenImpCasts());
    if (!ume || ume->isImplicitAccess() || c->getNumArgs() != 1 || !ume->getMemberName().isIdentifier()) continue;
    llvm::StringRef n = ume->getMemberName().getAsIdentifierInfo()->getName();
    if (n != "push_back" && n != "emplace_back" && n != "push_front" && n != "emplace_front") continue;
    const Expr* base = ume->getBase();
    if (!base || ume->isArrow() || !is_tensor_vector(base->getType())) continue;
    consider(c, base, c->getArg(0), KeptGraphTensor::How::Append);
  }
  for (const BinaryOperator* bo : nodes<BinaryOperator>(GPULINT_MATCH(binaryOperator(hasAnyOperatorName("+=", "-="))))) {
    if (!bo->isTypeDependent()) continue;
    const VarDecl* cv = root_var(bo->getLHS());
    const FieldDecl* field = member_field(bo->getLHS());
    if (!(cv && is_tensor_type(cv->getType())) && !(field && is_tensor_type(field->getType()))) continue;
    consider(bo, bo->getLHS(), bo->getRHS(), KeptGraphTensor::How::AugmentedAssign);
  }
  for (const CXXOperatorCallExpr* op : sums) {
    if (op->getNumArgs() != 2) continue;
    // `losses[i] = loss` into a tensor preallocated outside the loop: assigning to the indexed
    // view (a temporary) is at::Tensor's rvalue `operator=`, which copies into it
    // (ATen/core/TensorBody.h: `Tensor& operator=(const Tensor &rhs) && { return copy_(rhs); }`);
    // copy_ of an attached value records the copy in the whole tensor's graph (CopySlices), so
    // the preallocated tensor holds every step's graph.
    if (auto* sub = dyn_cast<CXXOperatorCallExpr>(strip(op->getArg(0)));
        sub && sub->getOperator() == OO_Subscript && sub->getNumArgs() == 2) {
      const VarDecl* tv = root_var(sub->getArg(0));
      if (tv && is_tensor_type(tv->getType()) && isa<DeclRefExpr>(strip(sub->getArg(0))) &&
          is_tensor_type(strip(op->getArg(1))->getType()))
        consider(op, sub->getArg(0), op->getArg(1), KeptGraphTensor::How::SubscriptStore);
      continue;
    }
    const VarDecl* cv = root_var(op->getArg(0));
    const FieldDecl* field = member_field(op->getArg(0));
    bool var_total = cv && is_tensor_type(cv->getType()) && isa<DeclRefExpr>(strip(op->getArg(0)));
    bool field_total = !cv && field && is_tensor_type(field->getType());
    if (!var_total && !field_total) continue;
    // `buf = torch::cat({buf, out}, 1)`: the running tensor grows by each iteration's element;
    // cat's result records every input in its graph (CatBackward), as a sum does.
    if (const Expr* el = concatenated_onto(op->getArg(1), op->getArg(0), var_total ? cv : nullptr)) {
      consider(op, op->getArg(0), el, KeptGraphTensor::How::Concatenate);
      continue;
    }
    // The right side: `total + x`, `x + total` or `total - x` (an at::Tensor operator).
    auto* sum = dyn_cast<CXXOperatorCallExpr>(strip(op->getArg(1)));
    if (!sum || sum->getNumArgs() != 2 || !is_tensor_type(sum->getType())) continue;
    OverloadedOperatorKind k = sum->getOperator();
    if (k != OO_Plus && k != OO_Minus) continue;
    const Expr* kept = nullptr;
    auto is_total = [&](const Expr* e) {
      if (var_total) return isa<DeclRefExpr>(strip(e)) && root_var(e) == cv;
      return same_object(e, op->getArg(0));
    };
    if (is_total(sum->getArg(0))) kept = sum->getArg(1);
    else if (k == OO_Plus && is_total(sum->getArg(1))) kept = sum->getArg(0);
    if (!kept) continue;
    consider(op, op->getArg(0), kept, KeptGraphTensor::How::AugmentedAssign);
  }
}

FileFacts Builder::run() {
  FileFacts f;
  f.language = Language::Cpp;
  collect_training_signals();
  f.trains = trains_;
  f.gpu_intent = gpu_intent_;
  f.trains_on_cuda = gpu_intent_;
  collect_loaders(f);
  collect_models(f);
  collect_member_models(f);
  collect_unmoved_batches(f);
  collect_created_then_moved(f);
  collect_kept_tensors(f);
  collect_cross_file(f);
  return f;
}

}  // namespace

FileFacts build_facts(clang::ASTContext& ctx) {
  Builder b(ctx);
  return b.run();
}

}  // namespace gpulint::cpp
