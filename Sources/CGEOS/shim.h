#define GEOS_USE_ONLY_R_API 1
#include <geos_c.h>
