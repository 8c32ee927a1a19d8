// The umbrella module: `import Meridian` gives the value types, the engine and KML.
@_exported import MeridianCore
@_exported import MeridianEngine
@_exported import MeridianKML
