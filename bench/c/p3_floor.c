/*
 * P3 floor: what PROJ itself costs on this platform, with no Meridian and no Python around it.
 *
 * The same operation as `GeometryEngine.project(_:from:into:)` and pyproj's `Transformer.from_crs(4326, EPSG,
 * always_xy=True).transform(lon, lat)`: proj_create_crs_to_crs + proj_normalize_for_visualization, then one
 * proj_trans_generic over all points (separate x and y arrays, as pyproj passes numpy arrays), on the inputs
 * bench/run writes (bench/out/inputs/P3.xy: float64 lon/lat pairs). Each repetition copies the input first (PROJ
 * transforms in place) and times the copy and the transformation; the transformation is created once, untimed.
 *
 *   cc -O2 -o bench/out/p3_floor bench/c/p3_floor.c $(pkg-config --cflags --libs proj)
 *   bench/out/p3_floor bench/out/inputs/P3.xy 32038 5          # prints one JSON line like meridian-bench
 *   bench/out/p3_floor bench/out/inputs/P3.xy 32038 1 OUT.xy   # also the largest |x, y difference| of OUT.xy
 *                                                              # (Meridian's pairs) from this PROJ's: max_abs_diff
 *   valgrind --tool=callgrind bench/out/p3_floor bench/out/inputs/P3.xy 3857 1   # instructions per point
 *   callgrind_annotate --inclusive=yes callgrind.out.* | grep proj_trans_generic     # ÷ 1e6 points
 *
 * With REPS = 0 it reads the input and creates the transformation but transforms nothing: the baseline to subtract
 * from whole-process instruction counts (or count `proj_trans_generic` alone with callgrind_annotate --inclusive=yes).
 */
#include <math.h>
#include <proj.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static PJ *create(PJ_CONTEXT *ctx, const char *target) {
    PJ *raw = proj_create_crs_to_crs(ctx, "EPSG:4326", target, NULL);
    if (!raw) return NULL;
    PJ *normalised = proj_normalize_for_visualization(ctx, raw);
    proj_destroy(raw);
    return normalised;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s P3.xy EPSG REPS [MERIDIAN_OUTPUT.xy]\n", argv[0]);
        return 2;
    }
    char target[32];
    snprintf(target, sizeof target, "EPSG:%s", argv[2]);
    int reps = atoi(argv[3]);

    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f) / (2 * sizeof(double));
    fseek(f, 0, SEEK_SET);
    double *pairs = malloc(2 * n * sizeof(double));
    if (fread(pairs, sizeof(double), 2 * n, f) != 2 * n) { fprintf(stderr, "short read\n"); return 1; }
    fclose(f);
    double *lon = malloc(n * sizeof(double)), *lat = malloc(n * sizeof(double));
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        lon[i] = pairs[2 * i];
        lat[i] = pairs[2 * i + 1];
    }

    // Created once, outside the timing, as Meridian caches its transformation (pyproj creates one per repetition).
    PJ_CONTEXT *ctx = proj_context_create();
    PJ *p = create(ctx, target);
    if (!p) { fprintf(stderr, "cannot create %s\n", target); return 1; }
    printf("{\"tool\": \"PROJ %s called directly from C (floor)\", \"times\": [", proj_info().version);
    double sumX = 0, sumY = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        memcpy(x, lon, n * sizeof(double));
        memcpy(y, lat, n * sizeof(double));
        proj_trans_generic(p, PJ_FWD, x, sizeof(double), n, y, sizeof(double), n, NULL, 0, 0, NULL, 0, 0);
        double t1 = now();
        printf("%s%.6f", r ? ", " : "", t1 - t0);
    }
    for (size_t i = 0; i < n && reps > 0; i++) {
        sumX += x[i];
        sumY += y[i];
    }
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    printf("], \"count\": %zu, \"sum_x\": %.17g, \"sum_y\": %.17g, \"peak_rss_mb\": %.1f", n, sumX, sumY,
           (double)u.ru_maxrss / 1024.0);
    if (argc > 4 && reps > 0) {
        // Meridian's projected pairs against this PROJ's, point by point.
        FILE *m = fopen(argv[4], "rb");
        if (!m || fread(pairs, sizeof(double), 2 * n, m) != 2 * n) { fprintf(stderr, "cannot read %s\n", argv[4]); return 1; }
        fclose(m);
        double worst = 0;
        for (size_t i = 0; i < n; i++) {
            double dx = fabs(pairs[2 * i] - x[i]), dy = fabs(pairs[2 * i + 1] - y[i]);
            if (!(dx <= worst)) worst = dx;
            if (!(dy <= worst)) worst = dy;
        }
        printf(", \"max_abs_diff\": %.3g", worst);
    }
    printf("}\n");
    proj_destroy(p);
    proj_context_destroy(ctx);
    free(pairs); free(lon); free(lat); free(x); free(y);
    return 0;
}
