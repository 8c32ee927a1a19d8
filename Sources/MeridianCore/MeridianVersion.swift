/// Meridian's version, the one string the command line (`meridian --version`) and the viewer (`/api/health`) report.
public enum MeridianVersion {
    /// The version, e.g. "0.1.0".
    public static let string = "0.1.0"
}
