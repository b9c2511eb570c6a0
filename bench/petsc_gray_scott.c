/* The peer of `backsweep gradient` on Gray–Scott: PETSc's TSAdjoint (discrete RK4 adjoint,
 * memory trajectory) on the problem of bench/gray_scott_config.sh — an N x N periodic grid
 * of spacing 2.5/64, D1 8e-5, D2 4e-5, gamma 0.024, kappa 0.06, RK4 with dt 0.5 for 400
 * steps from the same initial fields, J = u + v at point (N/2 - 1, N/2 - 1), its gradient
 * with respect to the initial fields and the four parameters.
 *   petsc_gray_scott N     prints: forward_seconds gradient_seconds J dJ/dD1 dJ/dD2 dJ/dgamma dJ/dkappa
 * gradient_seconds is the forward solve with its trajectory plus the adjoint, timed alone. */
#include <petscdmda.h>
#include <petscts.h>
#include <petsctime.h>

typedef struct {
  PetscScalar u, v;
} Field;

typedef struct {
  PetscReal d1, d2, gamma, kappa, h;
} Problem;

/* x with its ghost points, read through *y; release with release_ghosted. */
static PetscErrorCode read_ghosted(DM da, Vec x, Vec* local, Field*** y) {
  PetscCall(DMGetLocalVector(da, local));
  PetscCall(DMGlobalToLocalBegin(da, x, INSERT_VALUES, *local));
  PetscCall(DMGlobalToLocalEnd(da, x, INSERT_VALUES, *local));
  PetscCall(DMDAVecGetArrayRead(da, *local, y));
  return 0;
}
static PetscErrorCode release_ghosted(DM da, Vec* local, Field*** y) {
  PetscCall(DMDAVecRestoreArrayRead(da, *local, y));
  PetscCall(DMRestoreLocalVector(da, local));
  return 0;
}

/* The 5-point Laplacians of u and v at (j, i), s = 1 / h^2. */
static Field laplacians(Field** y, PetscInt j, PetscInt i, PetscReal s) {
  const Field c = y[j][i];
  const Field l = {(y[j][i - 1].u + y[j][i + 1].u + y[j - 1][i].u + y[j + 1][i].u - 4 * c.u) * s,
                   (y[j][i - 1].v + y[j][i + 1].v + y[j - 1][i].v + y[j + 1][i].v - 4 * c.v) * s};
  return l;
}

static PetscErrorCode rhs(TS ts, PetscReal t, Vec x, Vec f, void* context) {
  Problem* pr = (Problem*)context;
  DM da;
  Vec local;
  Field **y, **dy;
  PetscInt xs, ys, xm, ym;
  const PetscReal s = 1.0 / (pr->h * pr->h);
  (void)t;
  PetscCall(TSGetDM(ts, &da));
  PetscCall(read_ghosted(da, x, &local, &y));
  PetscCall(DMDAVecGetArray(da, f, &dy));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (PetscInt j = ys; j < ys + ym; ++j)
    for (PetscInt i = xs; i < xs + xm; ++i) {
      const Field c = y[j][i];
      const Field l = laplacians(y, j, i, s);
      const PetscScalar uvv = c.u * c.v * c.v;
      dy[j][i].u = pr->d1 * l.u - uvv + pr->gamma * (1 - c.u);
      dy[j][i].v = pr->d2 * l.v + uvv - (pr->gamma + pr->kappa) * c.v;
    }
  PetscCall(release_ghosted(da, &local, &y));
  PetscCall(DMDAVecRestoreArray(da, f, &dy));
  return 0;
}

static PetscErrorCode jacobian(TS ts, PetscReal t, Vec x, Mat a, Mat b, void* context) {
  Problem* pr = (Problem*)context;
  DM da;
  Field** y;
  PetscInt xs, ys, xm, ym;
  const PetscReal s = 1.0 / (pr->h * pr->h);
  (void)t;
  (void)a;
  PetscCall(TSGetDM(ts, &da));
  PetscCall(DMDAVecGetArrayRead(da, x, &y));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (PetscInt j = ys; j < ys + ym; ++j)
    for (PetscInt i = xs; i < xs + xm; ++i) {
      const Field c = y[j][i];
      MatStencil row, col[6];
      PetscScalar value[6];
      for (PetscInt component = 0; component < 2; ++component) {
        const PetscReal d = component == 0 ? pr->d1 : pr->d2;
        row.i = i, row.j = j, row.c = component;
        const PetscInt di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
        for (int k = 0; k < 4; ++k) col[k].i = i + di[k], col[k].j = j + dj[k], col[k].c = component, value[k] = d * s;
        col[4].i = i, col[4].j = j, col[4].c = 0;
        col[5].i = i, col[5].j = j, col[5].c = 1;
        if (component == 0) {
          value[4] = -4 * d * s - c.v * c.v - pr->gamma;
          value[5] = -2 * c.u * c.v;
        } else {
          value[4] = c.v * c.v;
          value[5] = -4 * d * s + 2 * c.u * c.v - (pr->gamma + pr->kappa);
        }
        PetscCall(MatSetValuesStencil(b, 1, &row, 6, col, value, INSERT_VALUES));
      }
    }
  PetscCall(DMDAVecRestoreArrayRead(da, x, &y));
  PetscCall(MatAssemblyBegin(b, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(b, MAT_FINAL_ASSEMBLY));
  return 0;
}

/* df/d(D1, D2, gamma, kappa), a dense column per parameter. */
static PetscErrorCode jacobian_p(TS ts, PetscReal t, Vec x, Mat jp, void* context) {
  Problem* pr = (Problem*)context;
  DM da;
  Vec local;
  Field** y;
  PetscInt xs, ys, xm, ym, mx;
  const PetscReal s = 1.0 / (pr->h * pr->h);
  const PetscInt columns[4] = {0, 1, 2, 3};
  (void)t;
  PetscCall(TSGetDM(ts, &da));
  PetscCall(DMDAGetInfo(da, NULL, &mx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(read_ghosted(da, x, &local, &y));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (PetscInt j = ys; j < ys + ym; ++j)
    for (PetscInt i = xs; i < xs + xm; ++i) {
      const Field c = y[j][i];
      const Field l = laplacians(y, j, i, s);
      const PetscInt rows[2] = {2 * (j * mx + i), 2 * (j * mx + i) + 1};
      const PetscScalar values[8] = {l.u, 0, 1 - c.u, 0, 0, l.v, -c.v, -c.v};
      PetscCall(MatSetValues(jp, 2, rows, 4, columns, values, INSERT_VALUES));
    }
  PetscCall(release_ghosted(da, &local, &y));
  PetscCall(MatAssemblyBegin(jp, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(jp, MAT_FINAL_ASSEMBLY));
  return 0;
}

/* v a bump of sin^2 on [0.4 L, 0.6 L]^2 (as bench/gray_scott_config.sh writes it), u = 1 - 2 v. */
static PetscErrorCode initial(DM da, Vec x, const Problem* pr, PetscInt n) {
  Field** y;
  PetscInt xs, ys, xm, ym;
  const PetscReal length = pr->h * n, pi = PETSC_PI;
  PetscCall(DMDAVecGetArray(da, x, &y));
  PetscCall(DMDAGetCorners(da, &xs, &ys, NULL, &xm, &ym, NULL));
  for (PetscInt j = ys; j < ys + ym; ++j)
    for (PetscInt i = xs; i < xs + xm; ++i) {
      const PetscReal px = i * pr->h, py = j * pr->h;
      const PetscBool inside = px >= 0.4 * length && px <= 0.6 * length && py >= 0.4 * length && py <= 0.6 * length;
      const PetscReal sx = PetscSinReal(2 * pi * px / (0.4 * length)), sy = PetscSinReal(2 * pi * py / (0.4 * length));
      y[j][i].v = inside ? sx * sx * sy * sy / 4 : 0;
      y[j][i].u = 1 - 2 * y[j][i].v;
    }
  PetscCall(DMDAVecRestoreArray(da, x, &y));
  return 0;
}

static PetscErrorCode make_ts(DM da, Problem* pr, Mat j, Mat jp, TS* ts) {
  PetscCall(TSCreate(PETSC_COMM_WORLD, ts));
  PetscCall(TSSetDM(*ts, da));
  PetscCall(TSSetProblemType(*ts, TS_NONLINEAR));
  PetscCall(TSSetRHSFunction(*ts, NULL, rhs, pr));
  PetscCall(TSSetRHSJacobian(*ts, j, j, jacobian, pr));
  PetscCall(TSSetRHSJacobianP(*ts, jp, jacobian_p, pr));
  PetscCall(TSSetType(*ts, TSRK));
  PetscCall(TSRKSetType(*ts, TSRK4));
  PetscCall(TSSetTimeStep(*ts, 0.5));
  PetscCall(TSSetMaxSteps(*ts, 400));
  PetscCall(TSSetMaxTime(*ts, 200.0));
  PetscCall(TSSetExactFinalTime(*ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetFromOptions(*ts));
  return 0;
}

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  const PetscInt n = argc > 1 ? atoi(argv[1]) : 64, centre = n / 2 - 1;
  Problem pr = {8e-5, 4e-5, 0.024, 0.06, 2.5 / 64};
  DM da;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_PERIODIC, DM_BOUNDARY_PERIODIC, DMDA_STENCIL_STAR, n, n,
                         PETSC_DECIDE, PETSC_DECIDE, 2, 1, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  Mat j, jp;
  PetscCall(DMCreateMatrix(da, &j));
  PetscCall(MatCreateDense(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 2 * n * n, 4, NULL, &jp));
  Vec x, lambda, mu;
  PetscCall(DMCreateGlobalVector(da, &x));
  PetscCall(VecDuplicate(x, &lambda));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 4, &mu));

  /* The forward solve alone. */
  TS ts;
  PetscLogDouble start, forward_end, gradient_end;
  PetscCall(make_ts(da, &pr, j, jp, &ts));
  PetscCall(initial(da, x, &pr, n));
  PetscCall(PetscTime(&start));
  PetscCall(TSSolve(ts, x));
  PetscCall(PetscTime(&forward_end));
  PetscCall(TSDestroy(&ts));

  /* The gradient: the forward solve keeping its trajectory in memory, then the adjoint. */
  PetscCall(make_ts(da, &pr, j, jp, &ts));
  PetscCall(TSSetSaveTrajectory(ts));
  PetscCall(initial(da, x, &pr, n));
  PetscLogDouble gradient_start;
  PetscCall(PetscTime(&gradient_start));
  PetscCall(TSSolve(ts, x));
  const PetscInt at = 2 * (centre * n + centre);
  PetscReal value = 0;
  const PetscScalar* final_state;
  PetscCall(VecGetArrayRead(x, &final_state));
  value = final_state[at] + final_state[at + 1];
  PetscCall(VecRestoreArrayRead(x, &final_state));
  PetscCall(VecSet(lambda, 0));
  PetscCall(VecSetValue(lambda, at, 1, INSERT_VALUES));
  PetscCall(VecSetValue(lambda, at + 1, 1, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(lambda));
  PetscCall(VecAssemblyEnd(lambda));
  PetscCall(VecSet(mu, 0));
  PetscCall(TSSetCostGradients(ts, 1, &lambda, &mu));
  PetscCall(TSAdjointSolve(ts));
  PetscCall(PetscTime(&gradient_end));
  const PetscScalar* dp;
  PetscCall(VecGetArrayRead(mu, &dp));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%.3f %.3f %.15g %.15g %.15g %.15g %.15g\n", forward_end - start,
                        gradient_end - gradient_start, value, dp[0], dp[1], dp[2], dp[3]));
  PetscCall(VecRestoreArrayRead(mu, &dp));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&lambda));
  PetscCall(VecDestroy(&mu));
  PetscCall(MatDestroy(&j));
  PetscCall(MatDestroy(&jp));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
