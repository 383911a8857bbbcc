/* Butcher tables of integrators/sp_tableau.h, family by family
 * and stage count by stage count:
 *   - row sums Σ_j a_ij = c_i (Gauss, Lobatto IIIA, IIIB for s ≥ 3; IIIB s = 2 has row
 *     sums ½, not c_i);
 *   - the simplifying assumptions B(p) up to the order, C(s) for Gauss and IIIA, C(s−2)
 *     for IIIB;
 *   - the symplecticity condition b_i a_ij + b_j a_ji = b_i b_j for Gauss and the
 *     partitioned condition b_i â_ij + b_j a_ji = b_i b_j for the IIIA/IIIB pair;
 *   - Gauss s = 1…3 and Lobatto s = 2…4 equal their closed forms (Hairer, Lubich
 *     & Wanner, Geometric Numerical Integration, II.1.3–II.1.4), the computed Lobatto
 *     s = 5, 6 their closed-form nodes and weights; the Lobatto order is exactly 2s − 2
 *     and both Lobatto tables are symmetric;
 *   - unknown families and stage counts are refused with SP_ERR_INVALID. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <string.h>

#include "integrators/sp_tableau.h"

typedef long double real;

static sp_tableau get_ok(const char *family, int s)
{
    sp_tableau t;
    sp_status st = sp_tableau_get(family, s, &t);
    cr_assert_eq(st, SP_OK, "sp_tableau_get(%s, %d) failed: %s", family, s, sp_status_name(st));
    cr_assert_eq(t.stages, s, "%s: stages %d, expected %d", family, t.stages, s);
    cr_assert_str_eq(t.family, family, "family name %s, expected %s", t.family, family);
    return t;
}

/* max_i |Σ_j a_ij − c_i| (summed in long double, so that only the table's own rounding shows) */
static double row_sum_defect(const sp_tableau *t, const double *target)
{
    double d = 0.0;
    for (int i = 0; i < t->stages; ++i) {
        real r = 0.0L;
        for (int j = 0; j < t->stages; ++j) r += t->A[i][j];
        d = fmax(d, fabs((double)(r - target[i])));
    }
    return d;
}

/* B(p): max over k = 1…p of |Σ b_i c_i^{k−1} − 1/k| */
static double B_defect(const sp_tableau *t, int p)
{
    double d = 0.0;
    for (int k = 1; k <= p; ++k) {
        real s = 0.0L;
        for (int i = 0; i < t->stages; ++i) s += t->b[i] * powl(t->c[i], k - 1);
        d = fmax(d, fabs((double)(s - 1.0L / k)));
    }
    return d;
}

/* C(q): max over k = 1…q and i of |Σ_j a_ij c_j^{k−1} − c_i^k / k| */
static double C_defect(const sp_tableau *t, int q)
{
    double d = 0.0;
    for (int k = 1; k <= q; ++k)
        for (int i = 0; i < t->stages; ++i) {
            real s = 0.0L;
            for (int j = 0; j < t->stages; ++j) s += t->A[i][j] * powl(t->c[j], k - 1);
            d = fmax(d, fabs((double)(s - powl(t->c[i], k) / k)));
        }
    return d;
}

/* max |b_i â_ij + b_j a_ji − b_i b_j| (â = a for a single symplectic table) */
static double symplectic_defect(const sp_tableau *a, const sp_tableau *ahat)
{
    double d = 0.0;
    for (int i = 0; i < a->stages; ++i)
        for (int j = 0; j < a->stages; ++j) {
            real m = (real)a->b[i] * ahat->A[i][j] + (real)a->b[j] * a->A[j][i] - (real)a->b[i] * a->b[j];
            d = fmax(d, fabs((double)m));
        }
    return d;
}

Test(tableau, gauss_row_sums_order_conditions_and_symplecticity)
{
    for (int s = 1; s <= 6; ++s) {
        sp_tableau t = get_ok("gauss", s);
        cr_assert_eq(t.order, 2 * s, "gauss s=%d: order %d", s, t.order);
        double rows = row_sum_defect(&t, t.c), B = B_defect(&t, 2 * s), C = C_defect(&t, s);
        double sym = symplectic_defect(&t, &t);
        /* one order beyond is violated, by exactly the Gauss quadrature error of x^{2s}:
         * |Σ b_i c_i^{2s} − 1/(2s+1)| = (s!)⁴ / ((2s+1) ((2s)!)²) */
        double B_next = B_defect(&t, 2 * s + 1), fs = 1.0, f2s = 1.0;
        for (int k = 1; k <= s; ++k) fs *= k;
        for (int k = 1; k <= 2 * s; ++k) f2s *= k;
        const double B_next_exact = fs * fs * fs * fs / ((2 * s + 1) * f2s * f2s);
        cr_log_info("gauss s=%d: row sums %.1e, B(%d) %.1e, C(%d) %.1e, symplectic %.1e, B(%d) %.1e", s, rows, 2 * s,
                    B, s, C, sym, 2 * s + 1, B_next);
        cr_expect_leq(rows, 2.5e-16, "gauss s=%d: |Σ_j a_ij − c_i| = %.3e", s, rows);
        cr_expect_leq(B, 4e-16, "gauss s=%d: B(%d) defect %.3e", s, 2 * s, B);
        cr_expect_leq(C, 4e-16, "gauss s=%d: C(%d) defect %.3e", s, s, C);
        cr_expect_leq(sym, 1.2e-16, "gauss s=%d: symplecticity defect %.3e", s, sym);
        cr_expect_leq(fabs(B_next - B_next_exact), 1e-6 * B_next_exact,
                      "gauss s=%d: B(%d) defect %.6e, the quadrature error is %.6e", s, 2 * s + 1, B_next, B_next_exact);
        /* nodes inside (0, 1), increasing, symmetric about ½; weights positive and symmetric */
        for (int i = 0; i < s; ++i) {
            cr_expect(t.c[i] > 0.0 && t.c[i] < 1.0, "gauss s=%d: c_%d = %.17g", s, i, t.c[i]);
            cr_expect(t.b[i] > 0.0, "gauss s=%d: b_%d = %.17g", s, i, t.b[i]);
            if (i) cr_expect(t.c[i] > t.c[i - 1], "gauss s=%d: nodes not increasing", s);
            cr_expect_leq(fabs(t.c[i] + t.c[s - 1 - i] - 1.0), 2.3e-16, "gauss s=%d: c not symmetric", s);
            cr_expect_leq(fabs(t.b[i] - t.b[s - 1 - i]), 1.2e-16, "gauss s=%d: b not symmetric", s);
        }
    }
}

Test(tableau, gauss_equals_its_closed_forms)
{
    const real r3 = sqrtl(3.0L), r15 = sqrtl(15.0L);
    const real A1[1][1] = {{0.5L}}, b1[1] = {1.0L}, c1[1] = {0.5L};
    const real A2[2][2] = {{0.25L, 0.25L - r3 / 6}, {0.25L + r3 / 6, 0.25L}}, b2[2] = {0.5L, 0.5L},
               c2[2] = {0.5L - r3 / 6, 0.5L + r3 / 6};
    const real A3[3][3] = {{5.0L / 36, 2.0L / 9 - r15 / 15, 5.0L / 36 - r15 / 30},
                           {5.0L / 36 + r15 / 24, 2.0L / 9, 5.0L / 36 - r15 / 24},
                           {5.0L / 36 + r15 / 30, 2.0L / 9 + r15 / 15, 5.0L / 36}},
               b3[3] = {5.0L / 18, 4.0L / 9, 5.0L / 18}, c3[3] = {0.5L - r15 / 10, 0.5L, 0.5L + r15 / 10};
    for (int s = 1; s <= 3; ++s) {
        sp_tableau t = get_ok("gauss", s);
        double d = 0.0;
        for (int i = 0; i < s; ++i) {
            const real bi = s == 1 ? b1[i] : s == 2 ? b2[i] : b3[i];
            const real ci = s == 1 ? c1[i] : s == 2 ? c2[i] : c3[i];
            d = fmax(d, fabs((double)(t.b[i] - bi)));
            d = fmax(d, fabs((double)(t.c[i] - ci)));
            for (int j = 0; j < s; ++j) {
                const real aij = s == 1 ? A1[i][j] : s == 2 ? A2[i][j] : A3[i][j];
                d = fmax(d, fabs((double)(t.A[i][j] - aij)));
            }
        }
        cr_log_info("gauss s=%d: max |table − closed form| = %.2e", s, d);
        cr_expect_leq(d, 2e-16, "gauss s=%d differs from its closed form by %.3e", s, d);
    }
}

Test(tableau, lobatto_iiia_iiib_pair)
{
    for (int s = 2; s <= 6; ++s) {
        sp_tableau a = get_ok("lobatto_iiia", s), bh = get_ok("lobatto_iiib", s);
        cr_assert_eq(a.order, 2 * s - 2, "IIIA s=%d: order %d", s, a.order);
        cr_assert_eq(bh.order, 2 * s - 2, "IIIB s=%d: order %d", s, bh.order);
        double same = 0.0;
        for (int i = 0; i < s; ++i) same = fmax(same, fabs(a.b[i] - bh.b[i]) + fabs(a.c[i] - bh.c[i]));
        cr_expect_eq(same, 0.0, "IIIA/IIIB s=%d: b, c differ by %.3e", s, same);

        double rowsA = row_sum_defect(&a, a.c), BA = B_defect(&a, 2 * s - 2), CA = C_defect(&a, s);
        double BB = B_defect(&bh, 2 * s - 2), CB = s > 2 ? C_defect(&bh, s - 2) : 0.0;
        double pair = symplectic_defect(&a, &bh), selfA = symplectic_defect(&a, &a);
        cr_log_info("Lobatto s=%d: IIIA rows %.1e B %.1e C(s) %.1e; IIIB B %.1e C(s-2) %.1e; pair %.1e; IIIA alone %.2f",
                    s, rowsA, BA, CA, BB, CB, pair, selfA);
        cr_expect_leq(rowsA, 2.5e-16, "IIIA s=%d: row sums off by %.3e", s, rowsA);
        cr_expect_leq(BA, 4e-16, "IIIA s=%d: B(%d) defect %.3e", s, 2 * s - 2, BA);
        cr_expect_leq(CA, 4e-16, "IIIA s=%d: C(%d) defect %.3e", s, s, CA);
        cr_expect_leq(BB, 4e-16, "IIIB s=%d: B(%d) defect %.3e", s, 2 * s - 2, BB);
        cr_expect_leq(CB, 4e-16, "IIIB s=%d: C(%d) defect %.3e", s, s - 2, CB);
        cr_expect_leq(pair, 1.2e-16, "IIIA/IIIB s=%d: b_i â_ij + b_j a_ji − b_i b_j = %.3e", s, pair);
        /* IIIA alone is not symplectic: the pair condition is what makes the partitioned method so */
        cr_expect_geq(selfA, 1e-3, "IIIA s=%d alone satisfies the symplecticity condition (%.3e)?", s, selfA);
        /* the order is exactly 2s − 2: the Lobatto quadrature misses x^{2s−2} */
        const double BA_next = B_defect(&a, 2 * s - 1);
        cr_expect_geq(BA_next, 1e-6, "Lobatto s=%d: B(%d) holds too (%.3e)", s, 2 * s - 1, BA_next);
        /* nodes increasing and symmetric about ½, weights positive and symmetric, and each
         * table symmetric, a_ij + a_{s+1−i, s+1−j} = b_j (HLW V.2.2: both methods are) */
        double nodes = 0.0, adj = 0.0;
        for (int i = 0; i < s; ++i) {
            cr_expect(a.b[i] > 0.0, "Lobatto s=%d: b_%d = %.17g", s, i + 1, a.b[i]);
            if (i) cr_expect(a.c[i] > a.c[i - 1], "Lobatto s=%d: nodes not increasing", s);
            nodes = fmax(nodes, fabs(a.c[i] + a.c[s - 1 - i] - 1.0) + fabs(a.b[i] - a.b[s - 1 - i]));
            for (int j = 0; j < s; ++j) {
                adj = fmax(adj, fabs(a.A[i][j] + a.A[s - 1 - i][s - 1 - j] - a.b[j]));
                adj = fmax(adj, fabs(bh.A[i][j] + bh.A[s - 1 - i][s - 1 - j] - bh.b[j]));
            }
        }
        cr_log_info("Lobatto s=%d: B(%d) defect %.2e; node/weight symmetry %.1e; a_ij + a_{s+1-i,s+1-j} - b_j %.1e", s,
                    2 * s - 1, BA_next, nodes, adj);
        cr_expect_leq(nodes, 4e-16, "Lobatto s=%d: nodes or weights not symmetric (%.3e)", s, nodes);
        cr_expect_leq(adj, 4e-16, "Lobatto s=%d: the tables are not symmetric (%.3e)", s, adj);

        /* IIIB row sums: c_i for s ≥ 3; ½ for s = 2 */
        double rowsB = row_sum_defect(&bh, bh.c);
        if (s == 2) {
            const double half[2] = {0.5, 0.5};
            double d = row_sum_defect(&bh, half);
            cr_expect_eq(d, 0.0, "IIIB s=2: row sums are not ½ (%.3e)", d);
            cr_expect_geq(rowsB, 0.49, "IIIB s=2: row sums equal c (off by only %.3e)", rowsB);
        } else {
            cr_expect_leq(rowsB, 2.5e-16, "IIIB s=%d: row sums off by %.3e", s, rowsB);
        }

        /* structure: IIIA first row 0 and last row b; IIIB first column b_1 and last column 0; c_1 = 0, c_s = 1 */
        cr_expect_eq(a.c[0], 0.0);
        cr_expect_eq(a.c[s - 1], 1.0);
        for (int j = 0; j < s; ++j) {
            cr_expect_eq(a.A[0][j], 0.0, "IIIA s=%d: a_1%d = %g", s, j + 1, a.A[0][j]);
            cr_expect_eq(a.A[s - 1][j], a.b[j], "IIIA s=%d: last row ≠ b at %d", s, j + 1);
            cr_expect_eq(bh.A[j][0], bh.b[0], "IIIB s=%d: first column ≠ b_1 at %d", s, j + 1);
            cr_expect_eq(bh.A[j][s - 1], 0.0, "IIIB s=%d: last column ≠ 0 at %d", s, j + 1);
        }
    }
}

Test(tableau, lobatto_equals_its_closed_forms)
{
    const real r5 = sqrtl(5.0L);
    const real A3[3][3] = {{0, 0, 0}, {5.0L / 24, 1.0L / 3, -1.0L / 24}, {1.0L / 6, 2.0L / 3, 1.0L / 6}};
    const real B3[3][3] = {{1.0L / 6, -1.0L / 6, 0}, {1.0L / 6, 1.0L / 3, 0}, {1.0L / 6, 5.0L / 6, 0}};
    const real A4[4][4] = {{0, 0, 0, 0},
                           {(11 + r5) / 120, (25 - r5) / 120, (25 - 13 * r5) / 120, (-1 + r5) / 120},
                           {(11 - r5) / 120, (25 + 13 * r5) / 120, (25 + r5) / 120, (-1 - r5) / 120},
                           {1.0L / 12, 5.0L / 12, 5.0L / 12, 1.0L / 12}};
    const real B4[4][4] = {{1.0L / 12, (-1 - r5) / 24, (-1 + r5) / 24, 0},
                           {1.0L / 12, (25 + r5) / 120, (25 - 13 * r5) / 120, 0},
                           {1.0L / 12, (25 + 13 * r5) / 120, (25 - r5) / 120, 0},
                           {1.0L / 12, (11 - r5) / 24, (11 + r5) / 24, 0}};
    const real c4[4] = {0, (5 - r5) / 10, (5 + r5) / 10, 1}, b4[4] = {1.0L / 12, 5.0L / 12, 5.0L / 12, 1.0L / 12};
    const real c3[3] = {0, 0.5L, 1}, b3[3] = {1.0L / 6, 2.0L / 3, 1.0L / 6};
    for (int s = 3; s <= 4; ++s) {
        sp_tableau a = get_ok("lobatto_iiia", s), bh = get_ok("lobatto_iiib", s);
        double d = 0.0;
        for (int i = 0; i < s; ++i) {
            d = fmax(d, fabs((double)(a.b[i] - (s == 3 ? b3[i] : b4[i]))));
            d = fmax(d, fabs((double)(a.c[i] - (s == 3 ? c3[i] : c4[i]))));
            for (int j = 0; j < s; ++j) {
                d = fmax(d, fabs((double)(a.A[i][j] - (s == 3 ? A3[i][j] : A4[i][j]))));
                d = fmax(d, fabs((double)(bh.A[i][j] - (s == 3 ? B3[i][j] : B4[i][j]))));
            }
        }
        cr_log_info("Lobatto s=%d: max |table − closed form| = %.2e", s, d);
        cr_expect_leq(d, 2.5e-16, "Lobatto s=%d differs from its closed form by %.3e", s, d);
    }
}

/* s = 5 and 6 are computed: their nodes and weights against the closed forms
 * (Abramowitz & Stegun 25.4.32, mapped to [0, 1]): s = 5, c = ½ ± √21/14, ½ with
 * b = 1/20, 49/180, 16/45; s = 6, c = ½ ± ½ ((7 ∓ 2√7)/21)^{1/2} with b = 1/30,
 * (14 ± √7)/60. */
Test(tableau, lobatto_5_and_6_nodes_and_weights_equal_their_closed_forms)
{
    const real r21 = sqrtl(21.0L), r7 = sqrtl(7.0L);
    const real c5[5] = {0, 0.5L - r21 / 14, 0.5L, 0.5L + r21 / 14, 1};
    const real b5[5] = {1.0L / 20, 49.0L / 180, 16.0L / 45, 49.0L / 180, 1.0L / 20};
    const real xi = sqrtl((7 + 2 * r7) / 21), xo = sqrtl((7 - 2 * r7) / 21); /* roots of P_5', outer and inner */
    const real c6[6] = {0, 0.5L - xi / 2, 0.5L - xo / 2, 0.5L + xo / 2, 0.5L + xi / 2, 1};
    const real b6[6] = {1.0L / 30, (14 - r7) / 60, (14 + r7) / 60, (14 + r7) / 60, (14 - r7) / 60, 1.0L / 30};
    for (int s = 5; s <= 6; ++s) {
        sp_tableau a = get_ok("lobatto_iiia", s);
        double d = 0.0;
        for (int i = 0; i < s; ++i) {
            d = fmax(d, fabs((double)(a.b[i] - (s == 5 ? b5[i] : b6[i]))));
            d = fmax(d, fabs((double)(a.c[i] - (s == 5 ? c5[i] : c6[i]))));
        }
        cr_log_info("Lobatto s=%d: max |nodes, weights − closed form| = %.2e", s, d);
        cr_expect_leq(d, 1.2e-16, "Lobatto s=%d: nodes or weights differ from their closed form by %.3e", s, d);
    }
}

Test(tableau, unknown_family_or_stage_count_is_invalid)
{
    struct {
        const char *family;
        int stages;
    } bad[] = {{"gauss", 0},         {"gauss", 7},         {"gauss", -1},         {"lobatto_iiia", 1},
               {"lobatto_iiia", 7},  {"lobatto_iiib", 1},  {"lobatto_iiib", 7},   {"radau_iia", 3},
               {"Gauss", 2},         {"lobatto", 3},       {"lobatto_iiic", 3},   {"lobatto_iiiab", 3},
               {"", 2},              {NULL, 2},            {"gauss ", 2},         {"gauss", 1000000}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        sp_tableau t;
        memset(&t, 0x5a, sizeof t);
        sp_status st = sp_tableau_get(bad[k].family, bad[k].stages, &t);
        cr_expect_eq(st, SP_ERR_INVALID, "sp_tableau_get(%s, %d) returned %s", bad[k].family ? bad[k].family : "NULL",
                     bad[k].stages, sp_status_name(st));
    }
    /* the valid neighbours of the refused counts do work */
    sp_tableau t;
    cr_expect_eq(sp_tableau_get("gauss", 6, &t), SP_OK);
    cr_expect_eq(sp_tableau_get("lobatto_iiia", 2, &t), SP_OK);
    cr_expect_eq(sp_tableau_get("lobatto_iiib", 6, &t), SP_OK);
}
