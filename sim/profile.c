/* SPDX-License-Identifier: MIT */
#include "profile.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/config.h"
#include "common/format.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "sim/data.h"

typedef struct ProfileFile {
        usec_t map_min, map_avg, map_max;
        uint64_t map_input;
        double map_selectivity;
        usec_t sh1_avg, sh1_max, shtyp_avg, shtyp_max;
        usec_t reduce_avg, reduce_max;
        double reduce_selectivity;
} ProfileFile;

#define F(m) CONF_FIELD(ProfileFile, m)
/* A task of up to a week; selectivities up to 10^6 (a map may well emit
 * more than it reads: WikiTrends' emits ten times its input). */
#define WEEK (7 * 24 * 3600LL * 1000000)
#define DUR(sec, k, m) \
        { sec, k, CONF_DURATION, F(m), NULL, true, .min = 0, .max = WEEK }
#define RATIO(sec, k, m) \
        { sec, k, CONF_DOUBLE, F(m), NULL, true, .dmin = 0, .dmax = 1e6 }

static const ConfKey keys[] = {
        DUR("map", "min", map_min),
        DUR("map", "avg", map_avg),
        DUR("map", "max", map_max),
        { "map", "input", CONF_SIZE, F(map_input), NULL, true, .min = 1,
          .max = 1024LL * 1024 * 1024 * 1024 },
        RATIO("map", "selectivity", map_selectivity),
        DUR("shuffle", "first_avg", sh1_avg),
        DUR("shuffle", "first_max", sh1_max),
        DUR("shuffle", "typical_avg", shtyp_avg),
        DUR("shuffle", "typical_max", shtyp_max),
        DUR("reduce", "avg", reduce_avg),
        DUR("reduce", "max", reduce_max),
        RATIO("reduce", "selectivity", reduce_selectivity),
};

/* The key named in an error is the one whose value breaks the order. */
static int check_order(ConfError *err, const char *section, const char *low_key, usec_t low,
                       const char *high_key, usec_t high) {
        if (low <= high)
                return 0;
        return conf_error_set(err, section, low_key, "%s is above %s, %s", FORMAT_DURATION(low),
                              high_key, FORMAT_DURATION(high));
}

static int validate(const void *config, ConfError *err) {
        const ProfileFile *f = config;
        int r;

        if (f->map_avg == 0)
                return conf_error_set(err, "map", "avg", "a map task takes some time");
        r = check_order(err, "map", "min", f->map_min, "avg", f->map_avg);
        if (r == 0)
                r = check_order(err, "map", "avg", f->map_avg, "max", f->map_max);
        if (r == 0)
                r = check_order(err, "shuffle", "first_avg", f->sh1_avg, "first_max", f->sh1_max);
        if (r == 0)
                r = check_order(err, "shuffle", "typical_avg", f->shtyp_avg, "typical_max",
                                f->shtyp_max);
        if (r == 0)
                r = check_order(err, "reduce", "avg", f->reduce_avg, "max", f->reduce_max);
        return r;
}

static const ConfSchema schema = {
        .keys = keys,
        .n_keys = ELEMENTSOF(keys),
        .size = sizeof(ProfileFile),
        .validate = validate,
};

int profile_parse(const char *name, const char *text, AriaProfile *ret, char *err,
                  size_t err_size) {
        ProfileFile f = { 0 };
        ConfError e;
        int r = conf_load_string(&schema, name, text, &f, &e);

        if (r < 0) {
                conf_error_format(&e, err, err_size);
                return r;
        }
        *ret = (AriaProfile){
                .map_min = usec_to_sec(f.map_min),
                .map_avg = usec_to_sec(f.map_avg),
                .map_max = usec_to_sec(f.map_max),
                .map_input = (double)f.map_input,
                .map_selectivity = f.map_selectivity,
                .sh1_avg = usec_to_sec(f.sh1_avg),
                .sh1_max = usec_to_sec(f.sh1_max),
                .shtyp_avg = usec_to_sec(f.shtyp_avg),
                .shtyp_max = usec_to_sec(f.shtyp_max),
                .reduce_avg = usec_to_sec(f.reduce_avg),
                .reduce_max = usec_to_sec(f.reduce_max),
                .reduce_selectivity = f.reduce_selectivity,
        };
        conf_free(&schema, &f);
        return 0;
}

int profile_load(const char *path, AriaProfile *ret, char *err, size_t err_size) {
        _cleanup_free_ char *text = NULL;
        int r = sim_read_text(path, &text, err, err_size);

        if (r < 0)
                return r;
        return profile_parse(path, text, ret, err, err_size);
}
