#pragma once
// Terms in u, v, k, a, b, t that together use the whole expression language (every
// function, operator, comparison and branch, powers of every kind, and a branch that would
// be NaN where it is not taken): what compiled kernels are checked against the interpreter
// on, for the CPU and for CUDA.
#include <string>
#include <vector>

namespace backsweep::testing {

inline const std::vector<std::string> kExpressionLanguageTerms{
    "exp(u) + log(v) + log10(u) + sqrt(v)", "sin(u) + cos(v) + tan(u) + tanh(v)",
    "abs(u - 1.5) + atan(u) + asin(u - 1.5) + acos(v - 1.5)", "sinh(u) + cosh(v) + erf(u - 1.5)",
    "min(u, v) + max(u, v) + atan2(u, v) + pow(u, v)", "u^3 + v^-2 + u^0.5 + u^v + 2^u + v^0",
    "if(u < v, u*v, u/v) + (u <= v) + (u == v) + (u != v) + (u > 1.5 and v < 1.5) + (u > 1.5 or v < 1.2)",
    "-u + (1 - u) + 2/v + u/2 + u - 3 + 3*u + t*u + k*a - b/k", "if(u > 10, sqrt(-u), u)",
    "min(u, u) + max(v, v) + abs(u - u)"};

}  // namespace backsweep::testing
