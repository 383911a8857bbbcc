/* A model of one's own through the holonomic callbacks (integrators/sp_holonomic.h): a
 * planar double pendulum in Cartesian coordinates q = (x1, y1, x2, y2), unit masses and
 * unit rods, gravity along −y, held by the two constraints
 *
 *     g1 = ½(x1² + y1² − 1) = 0,   g2 = ½((x2 − x1)² + (y2 − y1)² − 1) = 0.
 *
 * Released at rest with the rods at right angles, it is stepped 2000 times with RATTLE
 * (h = 0.005, 10 s). RATTLE keeps both the constraint g(q) = 0 and the hidden one
 * G(q)M⁻¹p = 0 to the Newton tolerance at every step, and its energy error stays bounded.
 * Prints the largest residuals and the energy error.
 *
 *     cc double_pendulum.c $(pkg-config --cflags --libs symplan) -o double_pendulum
 *
 * Exits 0 when the residuals stayed below 1e-12. */
#include <stdio.h>
#include <string.h>

#include <symplan/symplan.h>

#define GRAVITY 9.81

/* V = g (y1 + y2); its gradient and (zero) Hessian. Outputs may be NULL. */
static int potential(const double *q, double *V, double *grad, double *hess, void *params)
{
    (void)params;
    if (V) *V = GRAVITY * (q[1] + q[3]);
    if (grad) {
        const double g[4] = {0.0, GRAVITY, 0.0, GRAVITY};
        memcpy(grad, g, sizeof g);
    }
    if (hess) memset(hess, 0, 16 * sizeof *hess);
    return 0;
}

/* g (2), G = Dg (2 x 4, row-major) and the second derivatives d2g[(j·4 + k)·4 + l]. */
static int constraints(const double *q, double *g, double *G, double *d2g, void *params)
{
    (void)params;
    const double dx = q[2] - q[0], dy = q[3] - q[1];
    if (g) {
        g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - 1.0);
        g[1] = 0.5 * (dx * dx + dy * dy - 1.0);
    }
    if (G) {
        const double rows[8] = {q[0], q[1], 0.0, 0.0, -dx, -dy, dx, dy};
        memcpy(G, rows, sizeof rows);
    }
    if (d2g) {
        memset(d2g, 0, 2 * 16 * sizeof *d2g);
        /* g1: the identity on (x1, y1) */
        d2g[0 * 4 + 0] = d2g[1 * 4 + 1] = 1.0;
        /* g2: [I −I; −I I] */
        double *H = d2g + 16;
        for (int k = 0; k < 2; ++k) {
            H[k * 4 + k] = H[(k + 2) * 4 + k + 2] = 1.0;
            H[k * 4 + k + 2] = H[(k + 2) * 4 + k] = -1.0;
        }
    }
    return 0;
}

static double max2(double a, double b) { return a > b ? a : b; }

int main(void)
{
    static const double mass[4] = {1.0, 1.0, 1.0, 1.0};
    const sp_holonomic_model model = {
        .n = 4, .m = 2, .mass = mass, .potential = potential, .constraints = constraints};
    sp_holonomic *rattle = sp_holonomic_alloc(&model, sp_holonomic_method_by_name("rattle"));
    if (!rattle) return 1;
    sp_holonomic_set_options(rattle, &(sp_newton_options){.tol = 1e-14, .max_iter = 50});

    /* rods along (0.6, −0.8) and (0.8, 0.6): on the constraints, at rest (p = 0 is tangent) */
    double q[4] = {0.6, -0.8, 1.4, -0.2}, p[4] = {0.0, 0.0, 0.0, 0.0};
    double H0, H, position = 0.0, hidden = 0.0, energy = 0.0;
    if (sp_holonomic_energy(rattle, q, p, &H0) != SP_OK) return 1;

    const double h = 0.005;
    for (int k = 1; k <= 2000; ++k) {
        double gq, gp;
        sp_status st = sp_holonomic_step(rattle, h, q, p);
        if (st == SP_OK) st = sp_holonomic_residuals(rattle, q, p, &gq, &gp);
        if (st == SP_OK) st = sp_holonomic_energy(rattle, q, p, &H);
        if (st != SP_OK) {
            fprintf(stderr, "step %d: %s\n", k, sp_status_message(st));
            sp_holonomic_free(rattle);
            return 1;
        }
        position = max2(position, gq);
        hidden = max2(hidden, gp);
        energy = max2(energy, max2(H - H0, H0 - H));
    }
    printf("double pendulum, RATTLE, 2000 steps of h = %g: max |g(q)| %.3g, max |G M^-1 p| %.3g, "
           "max |H - H0| %.3g (H0 = %g)\n",
           h, position, hidden, energy, H0);
    sp_holonomic_free(rattle);
    return position < 1e-12 && hidden < 1e-12 ? 0 : 1;
}
