// GDAL/OGR's C API (GDAL 3.6+): datasets and drivers (gdal.h), vector layers, features and geometries (ogr_api.h),
// spatial reference systems (ogr_srs_api.h), configuration and error handling (cpl_conv.h, cpl_error.h), the virtual
// file system (cpl_vsi.h) and the Arrow C stream interface of layers (ogr_recordbatch.h).
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <ogr_recordbatch.h>

