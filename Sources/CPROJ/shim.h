#include <proj.h>
#include <geodesic.h>
