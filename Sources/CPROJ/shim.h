#include <proj.h>
#include <proj_experimental.h>
#include <geodesic.h>
