// The umbrella module: `import Meridian` gives the value types, the engine, KML and the GDAL formats.
@_exported import MeridianCore
@_exported import MeridianEngine
@_exported import MeridianKML
@_exported import MeridianFeatureData
