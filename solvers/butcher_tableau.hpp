#pragma once
// Butcher tableaux of explicit Runge-Kutta methods, stored inline (fixed maximum stage
// count, no heap) so a tableau can be copied into a GPU kernel.
//
//   Y_i = y_n + h sum_{j<i} a_ij k_j,   k_i = f(t_n + c_i h, Y_i, p),
//   y_{n+1} = y_n + h sum_i b_i k_i,    error estimate h sum_i e_i k_i  (e = b - b_hat)
#include <array>
#include <optional>
#include <span>
#include <string_view>

namespace backsweep {

inline constexpr int kMaxStages = 7;

struct ButcherTableau {
  std::string_view name;
  std::string_view description;
  int stages = 0;
  int order = 0;           // order of the propagated solution
  int embedded_order = 0;  // order of the embedded estimate; 0 when there is none
  double a[kMaxStages][kMaxStages] = {};
  double b[kMaxStages] = {};
  double c[kMaxStages] = {};
  double e[kMaxStages] = {};  // error weights b - b_hat
  // First same as last: the last stage is f(t_{n+1}, y_{n+1}), reusable as the next k_1.
  bool fsal = false;

  constexpr bool adaptive() const { return embedded_order > 0; }
};

namespace tableaux {

inline constexpr ButcherTableau euler{
    .name = "euler", .description = "forward Euler, order 1", .stages = 1, .order = 1,
    .b = {1.0}};

inline constexpr ButcherTableau heun{
    .name = "heun", .description = "Heun's method (explicit trapezoid), order 2",
    .stages = 2, .order = 2,
    .a = {{}, {1.0}},
    .b = {0.5, 0.5}, .c = {0.0, 1.0}};

inline constexpr ButcherTableau kutta3{
    .name = "kutta3", .description = "Kutta's third-order method", .stages = 3,
    .order = 3,
    .a = {{}, {0.5}, {-1.0, 2.0}},
    .b = {1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0}, .c = {0.0, 0.5, 1.0}};

// b_2 = 0: its second stage only feeds the third, a case the adjoint must get right.
inline constexpr ButcherTableau heun3{
    .name = "heun3", .description = "Heun's third-order method (b2 = 0)", .stages = 3,
    .order = 3,
    .a = {{}, {1.0 / 3.0}, {0.0, 2.0 / 3.0}},
    .b = {0.25, 0.0, 0.75}, .c = {0.0, 1.0 / 3.0, 2.0 / 3.0}};

inline constexpr ButcherTableau rk4{
    .name = "rk4", .description = "classic fourth-order Runge-Kutta", .stages = 4,
    .order = 4,
    .a = {{}, {0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}},
    .b = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0}, .c = {0.0, 0.5, 0.5, 1.0}};

inline constexpr ButcherTableau ssprk3{
    .name = "ssprk3", .description = "strong-stability-preserving RK3 (Shu-Osher)",
    .stages = 3, .order = 3,
    .a = {{}, {1.0}, {0.25, 0.25}},
    .b = {1.0 / 6.0, 1.0 / 6.0, 2.0 / 3.0}, .c = {0.0, 1.0, 0.5}};

inline constexpr ButcherTableau bs32{
    .name = "bs32", .description = "Bogacki-Shampine 3(2), FSAL", .stages = 4, .order = 3,
    .embedded_order = 2,
    .a = {{}, {0.5}, {0.0, 0.75}, {2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0}},
    .b = {2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0}, .c = {0.0, 0.5, 0.75, 1.0},
    .e = {2.0 / 9.0 - 7.0 / 24.0, 1.0 / 3.0 - 0.25, 4.0 / 9.0 - 1.0 / 3.0, -0.125},
    .fsal = true};

inline constexpr ButcherTableau dopri5{
    .name = "dopri5", .description = "Dormand-Prince 5(4), FSAL", .stages = 7, .order = 5,
    .embedded_order = 4,
    .a = {{},
          {1.0 / 5.0},
          {3.0 / 40.0, 9.0 / 40.0},
          {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0},
          {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0},
          {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0,
           -5103.0 / 18656.0},
          {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0}},
    .b = {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0,
          0.0},
    .c = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0},
    .e = {71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0,
          22.0 / 525.0, -1.0 / 40.0},
    .fsal = true};

// Ch. Tsitouras, "Runge-Kutta pairs of order 5(4) satisfying only the first column
// simplifying assumption", Comput. Math. Appl. 62 (2011) 770-775.
inline constexpr ButcherTableau tsit5{
    .name = "tsit5", .description = "Tsitouras 5(4), FSAL", .stages = 7, .order = 5,
    .embedded_order = 4,
    .a = {{},
          {0.161},
          {-0.008480655492356989, 0.335480655492357},
          {2.897153057105493, -6.359448489975075, 4.3622954328695815},
          {5.325864828439257, -11.748883564062828, 7.4955393428898365, -0.09249506636175525},
          {5.86145544294642, -12.92096931784711, 8.159367898576159, -0.071584973281401,
           -0.028269050394068383},
          {0.09646076681806523, 0.01, 0.4798896504144996, 1.379008574103742,
           -3.290069515436081, 2.324710524099774}},
    .b = {0.09646076681806523, 0.01, 0.4798896504144996, 1.379008574103742,
          -3.290069515436081, 2.324710524099774, 0.0},
    .c = {0.0, 0.161, 0.327, 0.9, 0.9800255409045097, 1.0, 1.0},
    .e = {-0.00178001105222577714, -0.0008164344596567469, 0.007880878010261995,
          -0.1447110071732629, 0.5823571654525552, -0.45808210592918697, 1.0 / 66.0},
    .fsal = true};

inline constexpr std::array<const ButcherTableau*, 9> all{
    &euler, &heun, &kutta3, &heun3, &rk4, &ssprk3, &bs32, &dopri5, &tsit5};

}  // namespace tableaux

}  // namespace backsweep
