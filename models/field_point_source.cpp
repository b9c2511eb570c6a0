#include "models/field_point_source.hpp"

#include <functional>
#include <optional>
#include <vector>

#include "models/operator_adjoints.hpp"
#include "platform/native_library.hpp"
#include "models/program_source.hpp"

namespace backsweep::detail {

namespace {

std::string str(std::size_t value) { return std::to_string(value); }

class PointSource {
  // How an array is read at the point and at its neighbours along an axis: a field where
  // it lies (at q), or an operator's adjoint in the slab buffers of the VJP (at j; the
  // outermost axis's neighbours in the buffers of their slabs, Gl and Gh), or recomputed
  // at the neighbour (one pass).
  struct Access {
    std::string center;
    std::function<std::string(std::size_t axis, const std::string& side)> at;
  };

 public:
  PointSource(const FieldEquations& fields, const ExpressionProgram& program)
      : fields_(fields), program_(program), axes_(fields.grid().axes()), scalars_(fields.scalar_parameters()) {
    const auto adjoints = operator_adjoints(program, fields.operators().size());
    for (std::size_t s = 0; s < adjoints.size(); ++s) {
      const FieldOperator& o = fields.operators()[s];
      one_pass_ = one_pass_ && adjoints[s].local;
      // The symmetry is taken for a stencil of a field of the state (div_grad's k-adjoint
      // needs the operator's own adjoint).
      scaled_.push_back(o.stencil.kind != StencilKind::div_grad && !o.u.parameter ? adjoints[s].scaled : std::nullopt);
    }
  }

  bool one_pass() const { return one_pass_; }

  // rhs_point; vjp_point, the program's reverse guarded as the interpreter's; or
  // vjp_point_fast, unguarded, raising `bad` where an adjoint is not finite (its row is
  // then taken again by vjp_point): masks cost more than the program.
  std::string point_function(const std::string& name, bool vjp, bool guarded = true) const {
    std::string text = "template <bool W> BS_INLINE void " + name +
                       "(const bs_grid_call& c, long q, const Side* lo, const Side* hi, const double* coord, double cx, "
                       "const double* ps" + std::string(vjp ? ", double* G, long P, long j" : "") + scalar_adjoints(vjp) +
                       (guarded ? "" : ", int& bad") + ") {\n(void)coord; (void)cx; (void)lo; (void)hi; (void)ps;\n" +
                       inputs();
    const ProgramSource source = names(vjp);
    if (!vjp) {
      text += source.run(program_, [](std::uint32_t d) { return "c.dydt[" + str(d) + " * n + q]"; });
      return text + "}\n";
    }
    text += source.run(program_, {});
    const std::size_t nf = fields_.fields().size(), npf = fields_.parameter_fields().size();
    const std::size_t nops = fields_.operators().size();
    text += adjoint_locals();
    text += source.reverse(program_, [](std::uint32_t d) { return "c.lambda[" + str(d) + " * n + q]"; }, guarded);
    // The slab's buffers: each operator's adjoint, then the fields' and the parameter
    // fields' own (what the gather starts from).
    for (std::size_t s = 0; s < nops; ++s) text += "G[" + str(s) + " * P + j] = a4_" + str(s) + ";\n";
    for (std::size_t f = 0; f < nf; ++f) text += "G[" + str(nops + f) + " * P + j] = a1_" + str(f) + ";\n";
    for (std::size_t f = 0; f < npf; ++f) text += "G[" + str(nops + nf + f) + " * P + j] = a3_" + str(f) + ";\n";
    if (!guarded) {
      std::string finite = "true";
      for (std::size_t f = 0; f < nf; ++f) finite += " && __builtin_isfinite(a1_" + str(f) + ")";
      for (std::size_t f = 0; f < npf; ++f) finite += " && __builtin_isfinite(a3_" + str(f) + ")";
      for (std::size_t s = 0; s < nops; ++s) finite += " && __builtin_isfinite(a4_" + str(s) + ")";
      text += "bad |= !(" + finite + ");\n";
    }
    return text + "}\n";
  }

  // vjp_once (guarded) or vjp_once_fast (unguarded, raising `bad`): the point's program
  // and reverse, then what its neighbours' operators owe it, each neighbour's share
  // recomputed there (operator_adjoint<s>); the point's adjoints stored. Where one_pass().
  std::string one_pass_function(bool guarded) const {
    const std::string suffix = guarded ? "" : "_fast";
    std::string text = "template <bool W> BS_INLINE void vjp_once" + suffix +
                       "(const bs_grid_call& c, long q, const Side* lo, const Side* hi, const double* coord, double cx, "
                       "const double* ps" + scalar_adjoints(true) + (guarded ? "" : ", int& bad") +
                       ") {\n(void)coord; (void)cx; (void)lo; (void)hi; (void)ps;\n" + inputs();
    ProgramSource source = names(true);
    source.elsewhere = [this](std::size_t op, std::size_t segment) {
      for (const auto& scaled : scaled_)
        if (scaled && scaled->op == op && segment == 2) return true;
      return false;
    };
    text += source.run(program_, {}) + adjoint_locals();
    text += source.reverse(program_, [](std::uint32_t d) { return "c.lambda[" + str(d) + " * n + q]"; }, guarded);
    const std::size_t nf = fields_.fields().size(), npf = fields_.parameter_fields().size();
    for (std::size_t f = 0; f < nf; ++f) text += "double sy" + str(f) + " = a1_" + str(f) + ";\n";
    for (std::size_t f = 0; f < npf; ++f) text += "double sk" + str(f) + " = a3_" + str(f) + ";\n";
    for (std::size_t s = 0; s < fields_.operators().size(); ++s) {
      const std::string at_neighbour = "operator_adjoint" + suffix + "_" + str(s) + "(c, q + ";
      const Access g{scaled_[s] ? "g" + str(scaled_[s]->op) : "a4_" + str(s),
                     [at_neighbour](std::size_t, const std::string& side) { return at_neighbour + side + ".off, ps)"; }};
      text += transpose(s, g, scaled_[s]);
    }
    text += stores();
    if (!guarded) {
      std::string finite = "true";
      for (std::size_t f = 0; f < nf; ++f) finite += " && __builtin_isfinite(sy" + str(f) + ")";
      for (std::size_t f = 0; f < npf; ++f) finite += " && __builtin_isfinite(sk" + str(f) + ")";
      text += "bad |= !(" + finite + ");\n";
    }
    return text + "}\n";
  }

  // Operator s's adjoint at q (scaled: the adjoint of parameter × operator) from what lies
  // at q alone: the program and its reverse, all but that adjoint left for the compiler to
  // drop. Operators' values and coordinates are NaN: the adjoint does not read them.
  std::string operator_adjoint_function(std::size_t s, bool guarded) const {
    std::string text = "BS_INLINE double operator_adjoint" + std::string(guarded ? "" : "_fast") + "_" + str(s) +
                       "(const bs_grid_call& c, long q, const double* ps) {\n" + inputs(false) +
                       "const double coord[3] = {__builtin_nan(\"\"), __builtin_nan(\"\"), __builtin_nan(\"\")}, "
                       "cx = __builtin_nan(\"\");\n(void)coord; (void)cx;\n";
    ProgramSource source = names(false);
    source.adjoint = [s](std::size_t segment, std::uint32_t i) { return segment == 4 && i == s ? "a4_" + str(s) : ""; };
    text += source.run(program_, {}) + "double a4_" + str(s) + " = 0.0;\n";
    text += source.reverse(program_, [](std::uint32_t d) { return "c.lambda[" + str(d) + " * n + q]"; }, guarded);
    return text + "return " + (scaled_[s] ? "g" + str(scaled_[s]->op) : "a4_" + str(s)) + ";\n}\n";
  }

  // At q, the fields' and parameter fields' own adjoints, then what the operators at q's
  // neighbours owe it: each operator's transpose, gathered, in the operators' order; each
  // sum stored once. `local`: gather_local, reading the buffers of the point (Gc) and of
  // its neighbours (Gn[2 * axis] below, Gn[2 * axis + 1] above) as one point's each.
  std::string gather_function(bool local) const {
    const std::size_t nf = fields_.fields().size(), npf = fields_.parameter_fields().size();
    const std::size_t nops = fields_.operators().size();
    std::string text = local ? "template <bool W> BS_INLINE void gather_local(const bs_grid_call& c, long q, const Side* lo, "
                               "const Side* hi, const double* Gc, const double* const* Gn) {\n"
                               "const long n = c.points; (void)n; (void)lo; (void)hi; (void)Gn;\n"
                             : "template <bool W> BS_INLINE void gather_point(const bs_grid_call& c, long q, const Side* lo, "
                               "const Side* hi, const double* Gc, const double* Gl, const double* Gh, long P, long j) {\n"
                               "const long n = c.points; (void)n; (void)lo; (void)hi; (void)Gl; (void)Gh;\n";
    const auto own = [local](std::size_t b) { return "Gc[" + str(b) + (local ? "]" : " * P + j]"); };
    for (std::size_t f = 0; f < nf; ++f) text += "double sy" + str(f) + " = " + own(nops + f) + ";\n";
    for (std::size_t f = 0; f < npf; ++f) text += "double sk" + str(f) + " = " + own(nops + nf + f) + ";\n";
    for (std::size_t s = 0; s < nops; ++s) text += transpose(s, local ? neighbour_buffer(s) : buffer(s), {});
    return text + stores() + "}\n";
  }

 private:
  // Operator s's transpose at q, its adjoint read through g, added into the gather's sums
  // (sy<f>, sk<f>). Scaled (parameter × operator, g that product's adjoint): the field's
  // share times the parameter, and the parameter's adjoint Σ u·Lᵀ(g) into ap<j>.
  std::string transpose(std::size_t s, const Access& g, const std::optional<ScaledOperator>& scaled) const {
    const FieldOperator& o = fields_.operators()[s];
    const std::string name = "r" + str(s);
    const bool u_wanted = !o.u.parameter, k_wanted = o.stencil.kind == StencilKind::div_grad && !o.k.parameter;
    std::string body;
    switch (o.stencil.kind) {
      case StencilKind::laplacian: body += laplacian(name, g); break;
      case StencilKind::derivative: {  // stencils::derivative_transpose
        const std::size_t a = o.stencil.axis;
        body += "const double " + name + " = ((when<W>(" + lo(a) + ".exists, " + g.at(a, lo(a)) + ") + unless<W>(" +
                hi(a) + ".mirror, " + g.center + ")) - (when<W>(" + hi(a) + ".exists, " + g.at(a, hi(a)) +
                ") + unless<W>(" + lo(a) + ".mirror, " + g.center + "))) * " + axis(a) + ".half_inverse_h;\n";
        break;
      }
      case StencilKind::div_grad: body += div_grad(name, field(o.k), g); break;
      case StencilKind::bilaplacian: break;  // refused by field_point_functions
    }
    const auto guarded = [&](bool wanted, const std::string& statements) {
      return wanted ? statements : "if (c.vjp_p) {\n" + statements + "}\n";
    };
    if (scaled)
      body += "ap" + str(scaled->parameter) + " += f" + str(o.u.index) + " * " + name + ";\n" + sum_of(o.u) + " += ps[" +
              str(scaled->parameter) + "] * " + name + ";\n";
    else
      body += sum_of(o.u) + " += " + name + ";\n";
    std::string text = guarded(u_wanted, "{\n" + body + "}\n");
    if (o.stencil.kind == StencilKind::div_grad) {  // stencils::div_grad_by_coefficient
      const Access u = global(field(o.u));
      std::string by_k = "{\ndouble dk = 0.0;\n";
      for (std::size_t a = 0; a < axes_; ++a)
        for (const std::string& side : {lo(a), hi(a)})
          by_k += "dk += share<W>(" + side + ") * (" + g.center + " - " + value(g, a, side) + ") * (" + value(u, a, side) +
                  " - " + u.center + ") * " + axis(a) + ".inverse_h2;\n";
      text += guarded(k_wanted, by_k + sum_of(o.k) + " += dk;\n}\n");
    }
    return text;
  }

  // The point's adjoints of its fields (a1_), parameter fields (a3_) and operators (a4_).
  std::string adjoint_locals() const {
    std::string text;
    for (std::size_t f = 0; f < fields_.fields().size(); ++f) text += "double a1_" + str(f) + " = 0.0;\n";
    for (std::size_t f = 0; f < fields_.parameter_fields().size(); ++f) text += "double a3_" + str(f) + " = 0.0;\n";
    for (std::size_t s = 0; s < fields_.operators().size(); ++s) text += "double a4_" + str(s) + " = 0.0;\n";
    return text;
  }
  // The gather's sums (sy<f>, sk<f>) stored at q, each once.
  std::string stores() const {
    std::string text;
    for (std::size_t f = 0; f < fields_.fields().size(); ++f) text += "c.vjp_y[" + str(f) + " * n + q] = sy" + str(f) + ";\n";
    if (const std::size_t npf = fields_.parameter_fields().size()) {
      text += "if (c.vjp_p) {\n";
      for (std::size_t f = 0; f < npf; ++f)
        text += "c.vjp_p[" + str(scalars_) + " + " + str(f) + " * n + q] = sk" + str(f) + ";\n";
      text += "}\n";
    }
    return text;
  }
  std::string field(const FieldOperand& o) const {
    return o.parameter ? "(c.p + " + str(scalars_) + " + " + str(o.index) + " * n)" : "(c.y + " + str(o.index) + " * n)";
  }
  // The gather's sum of the adjoint of a field (sy<f>) or parameter field (sk<f>) at q.
  static std::string sum_of(const FieldOperand& o) { return (o.parameter ? "sk" : "sy") + str(o.index); }
  static std::string axis(std::size_t a) { return "c.axis[" + str(a) + "]"; }
  static std::string lo(std::size_t a) { return "lo[" + str(a) + "]"; }
  static std::string hi(std::size_t a) { return "hi[" + str(a) + "]"; }

  static Access global(const std::string& array) {
    return {array + "[q]", [array](std::size_t, const std::string& side) { return array + "[q + " + side + ".off]"; }};
  }
  Access buffer(std::size_t op) const {
    const std::string at = str(op) + " * P + j";
    return {"Gc[" + at + "]", [at, outer = axes_ > 1](std::size_t a, const std::string& side) {
              if (outer && a == 0) return (side[0] == 'l' ? "Gl[" : "Gh[") + at + "]";
              return "Gc[" + at + " + " + side + ".off]";
            }};
  }
  // An operator's adjoint in the buffers of one point each (gather_local).
  static Access neighbour_buffer(std::size_t op) {
    return {"Gc[" + str(op) + "]", [op](std::size_t a, const std::string& side) {
              return "Gn[" + str(2 * a + (side[0] == 'l' ? 0 : 1)) + "][" + str(op) + "]";
            }};
  }
  static std::string value(const Access& u, std::size_t a, const std::string& side) {
    return "wv<W>(" + u.at(a, side) + ", " + side + ")";
  }

  // div_grad(k, u) at the point, as stencils::div_grad adds it up; k is a field.
  std::string div_grad(const std::string& name, const std::string& k, const Access& u) const {
    std::string text = "double " + name + " = 0.0;\n";
    for (std::size_t a = 0; a < axes_; ++a)
      text += "{ const double k_lo = (" + k + "[q] + " + k + "[q + " + lo(a) + ".off]) * 0.5, k_hi = (" + k + "[q] + " +
              k + "[q + " + hi(a) + ".off]) * 0.5;\n  " + name + " += (k_hi * (" + value(u, a, hi(a)) + " - " + u.center +
              ") - k_lo * (" + u.center + " - " + value(u, a, lo(a)) + ")) * " + axis(a) + ".inverse_h2; }\n";
    return text;
  }
  // lap(u) at the point, as stencils::laplacian adds it up.
  std::string laplacian(const std::string& name, const Access& u) const {
    std::string text = "double " + name + " = 0.0;\n";
    for (std::size_t a = 0; a < axes_; ++a)
      text += name + " += (" + value(u, a, lo(a)) + " - 2.0 * " + u.center + " + " + value(u, a, hi(a)) + ") * " +
              axis(a) + ".inverse_h2;\n";
    return text;
  }

  // The inputs one point's program reads (FieldEquations::inputs_at), as locals.
  // Without operators: their values NaN (where nothing reads them).
  std::string inputs(bool operators = true) const {
    std::string text = "const long n = c.points;\nconst double t = c.t;\n";
    for (std::size_t f = 0; f < fields_.fields().size(); ++f)
      text += "const double f" + str(f) + " = c.y[" + str(f) + " * n + q];\n";
    for (std::size_t f = 0; f < fields_.parameter_fields().size(); ++f)
      text += "const double k" + str(f) + " = c.p[" + str(scalars_) + " + " + str(f) + " * n + q];\n";
    for (std::size_t s = 0; s < fields_.operators().size(); ++s) {
      const FieldOperator& o = fields_.operators()[s];
      const std::string name = "o" + str(s);
      if (!operators) {
        text += "const double " + name + " = __builtin_nan(\"\");\n";
        continue;
      }
      switch (o.stencil.kind) {
        case StencilKind::laplacian: text += laplacian(name, global(field(o.u))); break;
        case StencilKind::derivative: {
          const std::size_t a = o.stencil.axis;
          const Access u = global(field(o.u));
          text += "const double " + name + " = (" + value(u, a, hi(a)) + " - " + value(u, a, lo(a)) + ") * " + axis(a) +
                  ".half_inverse_h;\n";
          break;
        }
        case StencilKind::div_grad: text += div_grad(name, field(o.k), global(field(o.u))); break;
        case StencilKind::bilaplacian: break;  // refused by field_point_functions
      }
    }
    return text;
  }

  ProgramSource names(bool with_adjoints) const {
    ProgramSource source;
    source.variable = [x = X()](std::size_t segment, std::uint32_t i) -> std::string {
      switch (segment) {
        case 0: return "t";
        case 1: return "f" + str(i);
        case 2: return "ps[" + str(i) + "]";
        case 3: return "k" + str(i);
        case 4: return "o" + str(i);
        default: return i < x ? "coord[" + str(i) + "]" : "cx";
      }
    };
    source.adjoint = [with_adjoints](std::size_t segment, std::uint32_t i) -> std::string {
      if (!with_adjoints || segment == 0 || segment == 5) return "";
      constexpr const char* prefix[] = {"", "a1_", "ap", "a3_", "a4_"};
      return prefix[segment] + str(i);
    };
    return source;
  }
  std::uint32_t X() const { return std::uint32_t(axes_ - 1); }

  // The scalar parameters' adjoints, added into the caller's sums (a vectorised
  // reduction there): per point into the sum directly, as the interpreter adds them.
  std::string scalar_adjoints(bool vjp) const {
    std::string text;
    for (std::size_t j = 0; vjp && j < scalars_; ++j) text += ", double& ap" + str(j);
    return text;
  }

  const FieldEquations& fields_;
  const ExpressionProgram& program_;
  std::size_t axes_, scalars_;
  bool one_pass_ = true;                               // every operator's adjoint local
  std::vector<std::optional<ScaledOperator>> scaled_;  // per operator
};

}  // namespace

std::string field_point_functions(const FieldEquations& fields, const ExpressionProgram& program, bool for_cpu) {
  // Native kernels read one neighbour along each axis; bilap() reads two, and diagonal ones.
  for (const FieldOperator& o : fields.operators())
    if (o.stencil.kind == StencilKind::bilaplacian)
      throw NativeLibraryError("bilap() has no native kernel: it reads two points along each axis, and diagonal neighbours");
  const PointSource source(fields, program);
  std::string text = source.point_function("rhs_point", false);
  if (for_cpu && source.one_pass()) {
    for (std::size_t s = 0; s < fields.operators().size(); ++s)
      text += source.operator_adjoint_function(s, true) + source.operator_adjoint_function(s, false);
    return text + source.one_pass_function(true) + source.one_pass_function(false);
  }
  return text + source.point_function("vjp_point", true) +
         (for_cpu ? source.point_function("vjp_point_fast", true, false) : "") + source.gather_function(false) +
         (for_cpu ? "" : source.gather_function(true));
}

bool field_vjp_in_one_pass(const FieldEquations& fields, const ExpressionProgram& program) {
  return PointSource(fields, program).one_pass();
}

}  // namespace backsweep::detail
