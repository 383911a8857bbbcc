/* Models written in the problem file ("model": "custom"): the configuration coordinates,
 * named parameters, and the model's functions as expressions (sp_expr.h), with every
 * derivative the integrators need formed symbolically once, when the model is built.
 *
 *   holonomic     H = ½ pᵀM⁻¹p + V(q) with a constant M (diagonal or full), constraints g(q) = 0;
 *   nonholonomic  H = ½ pᵀM(q)⁻¹p + V(q), linear velocity constraints μ(q) q̇ = 0;
 *   vakonomic     H = ½ (p + Gᵀλ)ᵀM⁻¹(p + Gᵀλ) + V(q) with a constant diagonal M and
 *                 constraint rows G(q) (sub-Riemannian when V = 0).
 *
 * Declared first integrals are expressions in the coordinates, the momenta (named p_<q>
 * for a coordinate q) and the parameters. The model keeps the symbols' values as scratch,
 * so an instance serves one run at a time. The family tables of the three kinds
 * (sp_hol_model_type, sp_nh_model_type, sp_vak_model_type) are held here for the
 * instance, with its sizes and coordinate names; their parameter values carry the
 * instance (sp_param_values.custom). */
#ifndef SP_CUSTOM_MODEL_H
#define SP_CUSTOM_MODEL_H

#include "problems/custom/sp_expr.h"
#include "problems/holonomic/sp_hol_models.h"
#include "problems/nonholonomic/sp_nh_models.h"
#include "problems/vakonomic/sp_vak_models.h"

#define SP_CUSTOM_MAX_N 12 /* the smallest of the three families' limits */
#define SP_CUSTOM_MAX_M 6
#define SP_CUSTOM_MAX_PARAMS 32
#define SP_CUSTOM_MAX_INTEGRALS 4
#define SP_CUSTOM_NAME_MAX 32
#define SP_CUSTOM_NH_POINTS 8 /* at least the stages of a Lobatto step (SP_NH_MAX_STAGES) */

typedef enum { SP_CUSTOM_HOLONOMIC, SP_CUSTOM_NONHOLONOMIC, SP_CUSTOM_VAKONOMIC } sp_custom_kind;

typedef struct sp_custom_model {
    sp_custom_kind kind;
    int n, m;
    int n_params, n_integrals;
    char coordinate[SP_CUSTOM_MAX_N][SP_CUSTOM_NAME_MAX];
    char param_name[SP_CUSTOM_MAX_PARAMS][SP_CUSTOM_NAME_MAX];
    double param_value[SP_CUSTOM_MAX_PARAMS];
    char integral_name[SP_CUSTOM_MAX_INTEGRALS][SP_CUSTOM_NAME_MAX];

    /* Symbols: q_1..q_n, then their momenta p_<q>, then the parameters; `values` holds
     * them in that order (the parameters' values set once). */
    int n_symbols;
    const char *symbol[2 * SP_CUSTOM_MAX_N + SP_CUSTOM_MAX_PARAMS];
    char momentum_name[SP_CUSTOM_MAX_N][SP_CUSTOM_NAME_MAX + 2];
    double values[2 * SP_CUSTOM_MAX_N + SP_CUSTOM_MAX_PARAMS];

    /* M: n x n row-major (diagonal kinds use the diagonal only); dM[(i n + j) n + k] =
     * ∂M_ij/∂q_k and d2M[((i n + j) n + k) n + l] (nonholonomic only, where M may depend on q). */
    sp_expr **M, **dM, **d2M;
    /* nonholonomic: the indices of the entries of dM and d2M that are not the constant 0
     * (the Hamiltonian's sums run over these only), and M⁻¹ once for all when M is
     * constant (mass_inverse_known) */
    int *dM_nonzero, *d2M_nonzero;
    int n_dM_nonzero, n_d2M_nonzero;
    /* their indices decoded: (i, j, k) of ∂_k M_ij, (i, j, k, l) of ∂_k∂_l M_ij */
    struct sp_custom_index {
        int i, j, k, l;
    } *dM_index, *d2M_index;
    int mass_inverse_known;
    double mass_inverse[SP_CUSTOM_MAX_N * SP_CUSTOM_MAX_N];
    /* nonholonomic: what the Hamiltonian and the constraints read at q, as one set of
     * expressions (V, ∇V, M unless constant, the nonzero ∂M, μ, ∂μ at the nh_at_* offsets
     * of a point's values), evaluated once per q and kept for the last SP_CUSTOM_NH_POINTS
     * points: the stage equations ask for the Hamiltonian and the constraints at each
     * stage, then the Hamiltonian again at the same stages, and whatever the functions
     * share is computed once; with M(q)⁻¹ when M varies. nh_second: ∇²V and the nonzero
     * ∂²M, for H_qq. */
    sp_expr_set *nh_first, *nh_second;
    int nh_at_count; /* values of a point */
    double *nh_at_values, *nh_second_values;
    int nh_at_dV, nh_at_M, nh_at_dM, nh_at_R, nh_at_dR; /* offsets (nh_at_M < 0: M is constant) */
    struct sp_custom_nh_point {
        double q[SP_CUSTOM_MAX_N];
        int valid;
        int W_state; /* M(q)⁻¹ in W: 1 once formed, -1 where M is not positive definite */
        double W[SP_CUSTOM_MAX_N * SP_CUSTOM_MAX_N];
    } nh_point[SP_CUSTOM_NH_POINTS];
    int nh_next_point; /* the one to replace next */
    double mass_diagonal[SP_CUSTOM_MAX_N]; /* constant kinds: M's diagonal */
    int mass_full;                         /* holonomic: M has off-diagonal entries, in mass_matrix */
    double mass_matrix[SP_CUSTOM_MAX_N * SP_CUSTOM_MAX_N];
    /* V, ∇V (n), ∇²V (n x n). */
    sp_expr *V, **dV, **d2V;
    /* holonomic: g (m), G = Dg (m x n), d2g (m x n x n).
     * nonholonomic, vakonomic: rows R (m x n; μ or G), dR (m x n x n), d2R (m x n x n x n, vakonomic). */
    sp_expr **g, **G, **d2g;
    sp_expr **R, **dR, **d2R;
    sp_expr *integral[SP_CUSTOM_MAX_INTEGRALS];

    /* The family tables of this instance (only the one of its kind is used). */
    sp_hol_model_type hol_type;
    sp_nh_model_type nh_type;
    sp_vak_model_type vak_type;
    const char *coordinate_names[SP_CUSTOM_MAX_N];
    /* The instance as parameter values (prm.custom is the model): what the family
     * tables' callbacks receive. */
    sp_param_values prm;
} sp_custom_model;

/* The kind's name ("holonomic", …) and back; -1 for an unknown name. */
const char *sp_custom_kind_name(sp_custom_kind kind);
int sp_custom_kind_by_name(const char *name);

/* A model of the kind with no coordinates yet. NULL when out of memory. */
sp_custom_model *sp_custom_new(sp_custom_kind kind);
void sp_custom_free(sp_custom_model *c);

/* Building, in this order: coordinates, parameters, then the functions. Each returns
 * SP_ERR_INVALID with the reason in why, or SP_ERR_NOMEM. */
sp_status sp_custom_add_coordinate(sp_custom_model *c, const char *name, char *why, size_t size);
sp_status sp_custom_add_param(sp_custom_model *c, const char *name, double value, char *why, size_t size);
/* Parses an expression over the model's symbols; with `positions_only`, one that reads
 * momenta is refused (every function but the first integrals). */
sp_status sp_custom_parse(sp_custom_model *c, const char *text, int positions_only, sp_expr **out, char *why,
                          size_t size);
/* After the functions are set (M's entries, V, g or R, integrals; NULL where absent:
 * V = 0, M's off-diagonal = 0), forms the derivatives and the family table of its kind.
 * SP_ERR_NOMEM when memory runs out. */
sp_status sp_custom_finish(sp_custom_model *c);
/* Sets the model's storage for functions: M (n x n), g (m) or R (m x n), after the
 * coordinates and m are known. */
sp_status sp_custom_alloc_functions(sp_custom_model *c, int m);

/* The callback models of the integrators, for the instance. */
void sp_custom_holonomic_model(sp_custom_model *c, sp_holonomic_model *out);
void sp_custom_nh_model(sp_custom_model *c, sp_nh_model *out);
void sp_custom_vak_model(sp_custom_model *c, sp_vakonomic_model *out);
/* M(q) (n x n) at q. */
void sp_custom_mass_matrix(sp_custom_model *c, const double *q, double *M);
/* The declared first integrals at (q, p) into out; returns how many. */
size_t sp_custom_integrals(sp_custom_model *c, const double *q, const double *p, double *out);
/* Their names; returns how many. */
size_t sp_custom_integral_names(const sp_custom_model *c, const char **names);

#endif
