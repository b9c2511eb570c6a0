#pragma once
// Diagonally implicit Runge-Kutta tableaux (a_ij = 0 for j > i, some a_ii != 0), in the
// same ButcherTableau as the explicit ones: Y_i = y + h sum_{j<=i} a_ij k_j.
// ImplicitRK (solvers/implicit_rk.hpp) steps them. All but Crank-Nicolson are L-stable;
// all are stiffly accurate (b is the last row of a), so y_next is the last stage state.
#include <array>

#include "solvers/butcher_tableau.hpp"

namespace backsweep::tableaux {

inline constexpr ButcherTableau backward_euler{
    .name = "backward_euler", .description = "backward (implicit) Euler, order 1, L-stable",
    .stages = 1, .order = 1, .a = {{1.0}}, .b = {1.0}, .c = {1.0}};

// The trapezoidal rule as an explicit-first-stage DIRK: A-stable, not L-stable.
inline constexpr ButcherTableau crank_nicolson{
    .name = "crank_nicolson", .description = "Crank-Nicolson (implicit trapezoid), order 2",
    .stages = 2, .order = 2, .a = {{}, {0.5, 0.5}}, .b = {0.5, 0.5}, .c = {0.0, 1.0}};

// gamma = 1 - 1/sqrt(2) (Alexander 1977).
inline constexpr double kSdirk2Gamma = 0.29289321881345247560;
inline constexpr ButcherTableau sdirk2{
    .name = "sdirk2", .description = "two-stage SDIRK, order 2, L-stable", .stages = 2,
    .order = 2, .a = {{kSdirk2Gamma}, {1.0 - kSdirk2Gamma, kSdirk2Gamma}},
    .b = {1.0 - kSdirk2Gamma, kSdirk2Gamma}, .c = {kSdirk2Gamma, 1.0}};

// ESDIRK3(2)4L[2]SA, the implicit part of Kennedy & Carpenter's ARK3(2)4L[2]SA (Appl.
// Numer. Math. 44, 2003): explicit first stage, gamma = 0.4358665215084590.
inline constexpr double kEsdirk3Gamma = 1767732205903.0 / 4055673282236.0;
inline constexpr ButcherTableau esdirk3{
    .name = "esdirk3", .description = "ESDIRK3(2)4L[2]SA (Kennedy-Carpenter), L-stable",
    .stages = 4, .order = 3, .embedded_order = 2,
    .a = {{},
          {kEsdirk3Gamma, kEsdirk3Gamma},
          {2746238789719.0 / 10658868560708.0, -640167445237.0 / 6845629431997.0, kEsdirk3Gamma},
          {1471266399579.0 / 7840856788654.0, -4482444167858.0 / 7529755066697.0,
           11266239266428.0 / 11593286722821.0, kEsdirk3Gamma}},
    .b = {1471266399579.0 / 7840856788654.0, -4482444167858.0 / 7529755066697.0,
          11266239266428.0 / 11593286722821.0, kEsdirk3Gamma},
    .c = {0.0, 2.0 * kEsdirk3Gamma, 3.0 / 5.0, 1.0},
    .e = {1471266399579.0 / 7840856788654.0 - 2756255671327.0 / 12835298489170.0,
          -4482444167858.0 / 7529755066697.0 + 10771552573575.0 / 22201958757719.0,
          11266239266428.0 / 11593286722821.0 - 9247589265047.0 / 10645013368117.0,
          kEsdirk3Gamma - 2193209047091.0 / 5459859503100.0}};

// Hairer & Wanner's SDIRK4 (Solving ODEs II, Table IV.6.5), gamma = 1/4, with its
// embedded third-order solution.
inline constexpr ButcherTableau sdirk4{
    .name = "sdirk4", .description = "SDIRK4(3), five stages (Hairer-Wanner), L-stable",
    .stages = 5, .order = 4, .embedded_order = 3,
    .a = {{0.25},
          {0.5, 0.25},
          {17.0 / 50.0, -1.0 / 25.0, 0.25},
          {371.0 / 1360.0, -137.0 / 2720.0, 15.0 / 544.0, 0.25},
          {25.0 / 24.0, -49.0 / 48.0, 125.0 / 16.0, -85.0 / 12.0, 0.25}},
    .b = {25.0 / 24.0, -49.0 / 48.0, 125.0 / 16.0, -85.0 / 12.0, 0.25},
    .c = {0.25, 0.75, 11.0 / 20.0, 0.5, 1.0},
    .e = {25.0 / 24.0 - 59.0 / 48.0, -49.0 / 48.0 + 17.0 / 96.0, 125.0 / 16.0 - 225.0 / 32.0,
          0.0, 0.25}};

inline constexpr std::array<const ButcherTableau*, 5> implicit_all{
    &backward_euler, &crank_nicolson, &sdirk2, &esdirk3, &sdirk4};

}  // namespace backsweep::tableaux
