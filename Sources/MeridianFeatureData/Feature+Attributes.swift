import MeridianCore

extension Feature {
    /// The feature's attributes under ArcGIS's name: the same dictionary as ``/MeridianCore/Feature/properties``,
    /// keyed by field name (see ``FieldType`` for how each type's values are represented).
    public var attributes: [String: JSONValue] {
        get { properties }
        set { properties = newValue }
    }
}
