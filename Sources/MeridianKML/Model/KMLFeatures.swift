/// What every KML feature (placemark, folder, document) has, as in ArcGIS's `AGSKMLNode`.
public protocol KMLNode: Sendable, Hashable {
    /// The `id` attribute.
    var id: String? { get set }
    /// `<name>`.
    var name: String? { get set }
    /// `<description>`: plain text or HTML (written in CDATA when it holds markup). Named as ArcGIS's
    /// `nodeDescription`, so that `description` stays the short text `print` shows.
    var nodeDescription: String? { get set }
    /// `<Snippet>`: the short description shown in lists.
    var snippet: String? { get set }
    /// `<visibility>`; `nil` when not written (KML's default: visible).
    var isVisible: Bool? { get set }
    /// `<open>`; `nil` when not written (KML's default: closed).
    var isOpen: Bool? { get set }
    /// `<styleUrl>`: a reference to a shared style or style map, e.g. `#pin`.
    var styleUrl: String? { get set }
    /// `<ExtendedData>`: name/value data and schema data.
    var extendedData: KMLExtendedData? { get set }
    /// Child elements read but not modeled (`LookAt`, `TimeSpan`, `Region`, `atom:link`, `gx:balloonVisibility`,
    /// unknown elements, …), written back in schema order.
    var unmodeledElements: [KMLElement] { get set }
    /// The node as a child of a container: `.placemark(self)`, `.folder(self)` or `.document(self)`.
    var feature: KMLFeature { get }
}

extension KMLPlacemark {
    /// The placemark as a container's child, `.placemark(self)`.
    public var feature: KMLFeature { .placemark(self) }
}

extension KMLFolder {
    /// The folder as a container's child, `.folder(self)`.
    public var feature: KMLFeature { .folder(self) }
}

extension KMLDocument {
    /// The document as a container's child (a nested document), `.document(self)`.
    public var feature: KMLFeature { .document(self) }
}

/// Custom data of a feature (`<ExtendedData>`).
public struct KMLExtendedData: Sendable, Hashable {
    /// An untyped `<Data name="…"><value>…</value></Data>` entry.
    public struct DataEntry: Sendable, Hashable {
        /// The `name` attribute.
        public var name: String
        /// `<displayName>`, if any.
        public var displayName: String?
        /// `<value>`.
        public var value: String

        /// Creates an entry.
        /// - Parameters:
        ///   - name: The name.
        ///   - value: The value.
        ///   - displayName: Optional display name.
        public init(name: String, value: String, displayName: String? = nil) {
            self.name = name
            self.value = value
            self.displayName = displayName
        }
    }

    /// Typed data for a `<Schema>` (`<SchemaData schemaUrl="#s"><SimpleData name="…">…</SimpleData>…`).
    public struct SchemaData: Sendable, Hashable {
        /// One `<SimpleData>`.
        public struct Field: Sendable, Hashable {
            /// The field name.
            public var name: String
            /// The value as written.
            public var value: String

            /// Creates a field.
            /// - Parameters:
            ///   - name: Field name.
            ///   - value: Value.
            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        /// The schema reference, e.g. `#trailSchema`.
        public var schemaUrl: String?
        /// The fields in order.
        public var fields: [Field]
        /// Preserved children (e.g. `gx:SimpleArrayData`).
        public var unmodeledElements: [KMLElement]

        /// Creates schema data.
        /// - Parameters:
        ///   - schemaUrl: The schema reference.
        ///   - fields: The fields.
        public init(schemaUrl: String?, fields: [Field]) {
            self.schemaUrl = schemaUrl
            self.fields = fields
            self.unmodeledElements = []
        }
    }

    /// `<Data>` entries in order.
    public var data: [DataEntry]
    /// `<SchemaData>` blocks in order.
    public var schemaData: [SchemaData]
    /// Preserved children of other namespaces.
    public var unmodeledElements: [KMLElement]

    /// Creates extended data.
    /// - Parameters:
    ///   - data: `<Data>` entries.
    ///   - schemaData: `<SchemaData>` blocks.
    public init(data: [DataEntry] = [], schemaData: [SchemaData] = []) {
        self.data = data
        self.schemaData = schemaData
        self.unmodeledElements = []
    }

    /// Every name/value pair: `Data` entries, then `SimpleData` fields (later duplicates win).
    public var values: [String: String] {
        var out: [String: String] = [:]
        for d in data { out[d.name] = d.value }
        for s in schemaData { for f in s.fields { out[f.name] = f.value } }
        return out
    }
}

/// A `<Placemark>`: a geometry with a name, description, style and data.
public struct KMLPlacemark: KMLNode {
    /// The `id` attribute.
    public var id: String?
    /// `<name>`.
    public var name: String?
    /// `<description>`: text or HTML (written in CDATA when it holds markup).
    public var nodeDescription: String?
    /// `<Snippet>`.
    public var snippet: String?
    /// `<visibility>`; `nil` when not written.
    public var isVisible: Bool?
    /// `<open>`; `nil` when not written.
    public var isOpen: Bool?
    /// `<styleUrl>`, e.g. `#pin`.
    public var styleUrl: String?
    /// `<ExtendedData>`.
    public var extendedData: KMLExtendedData?
    /// Children read but not modeled, written back in schema order.
    public var unmodeledElements: [KMLElement]
    /// The inline `<Style>` (ArcGIS's `placemark.style`); it overrides the shared style's sub-styles.
    public var style: KMLStyle?
    /// An inline `<StyleMap>`, rarely used.
    public var styleMap: KMLStyleMap?
    /// The geometry, `nil` for a placemark without one.
    public var geometry: KMLGeometry?

    /// Creates a placemark (ArcGIS's `AGSKMLPlacemark(geometry:)`).
    /// - Parameters:
    ///   - geometry: The geometry, in WGS84.
    ///   - name: The name.
    ///   - nodeDescription: The `<description>`: text or HTML.
    ///   - style: Inline style.
    ///   - styleUrl: Shared style reference.
    public init(geometry: KMLGeometry?, name: String? = nil, nodeDescription: String? = nil, style: KMLStyle? = nil,
                styleUrl: String? = nil) {
        self.geometry = geometry
        self.name = name
        self.nodeDescription = nodeDescription
        self.style = style
        self.styleUrl = styleUrl
        self.unmodeledElements = []
    }
}

/// A `<Folder>`: features grouped, possibly nested.
public struct KMLFolder: KMLNode {
    /// The `id` attribute.
    public var id: String?
    /// `<name>`.
    public var name: String?
    /// `<description>`: text or HTML (written in CDATA when it holds markup).
    public var nodeDescription: String?
    /// `<Snippet>`.
    public var snippet: String?
    /// `<visibility>`; `nil` when not written.
    public var isVisible: Bool?
    /// `<open>`; `nil` when not written.
    public var isOpen: Bool?
    /// `<styleUrl>`, e.g. `#pin`.
    public var styleUrl: String?
    /// `<ExtendedData>`.
    public var extendedData: KMLExtendedData?
    /// Children read but not modeled, written back in schema order.
    public var unmodeledElements: [KMLElement]
    /// Style selectors defined in the folder.
    public var styles: [KMLStyleSelector]
    /// The folder's children in order.
    public var features: [KMLFeature]

    /// Creates a folder.
    /// - Parameters:
    ///   - name: The name.
    ///   - features: The children.
    public init(name: String? = nil, features: [KMLFeature] = []) {
        self.name = name
        self.features = features
        self.styles = []
        self.unmodeledElements = []
    }
}

/// A `<Document>`: the top-level container, holding the shared styles referenced by `styleUrl`.
public struct KMLDocument: KMLNode {
    /// The `id` attribute.
    public var id: String?
    /// `<name>`.
    public var name: String?
    /// `<description>`: text or HTML (written in CDATA when it holds markup).
    public var nodeDescription: String?
    /// `<Snippet>`.
    public var snippet: String?
    /// `<visibility>`; `nil` when not written.
    public var isVisible: Bool?
    /// `<open>`; `nil` when not written.
    public var isOpen: Bool?
    /// `<styleUrl>`, e.g. `#pin`.
    public var styleUrl: String?
    /// `<ExtendedData>`.
    public var extendedData: KMLExtendedData?
    /// Children read but not modeled, written back in schema order.
    public var unmodeledElements: [KMLElement]
    /// Shared styles and style maps, referenced by `#id`.
    public var styles: [KMLStyleSelector]
    /// The document's children in order.
    public var features: [KMLFeature]
    /// `true` when read from a file whose root feature was not a `<Document>` (the feature(s) then sit in
    /// `features` and are written back without a `<Document>` wrapper).
    public var isImplicit: Bool

    /// Creates a document.
    /// - Parameters:
    ///   - name: The name.
    ///   - styles: Shared styles.
    ///   - features: The children.
    public init(name: String? = nil, styles: [KMLStyleSelector] = [], features: [KMLFeature] = []) {
        self.name = name
        self.styles = styles
        self.features = features
        self.unmodeledElements = []
        self.isImplicit = false
    }

    /// Adds a shared style (replacing one with the same id).
    /// - Parameter style: A style with an `id`.
    public mutating func addStyle(_ style: KMLStyle) {
        styles.removeAll { $0.id != nil && $0.id == style.id }
        styles.append(.style(style))
    }

    /// Adds a shared style map (replacing one with the same id).
    /// - Parameter styleMap: A style map with an `id`.
    public mutating func addStyleMap(_ styleMap: KMLStyleMap) {
        styles.removeAll { $0.id != nil && $0.id == styleMap.id }
        styles.append(.styleMap(styleMap))
    }
}

/// A child of a container.
public indirect enum KMLFeature: Sendable, Hashable {
    /// A placemark.
    case placemark(KMLPlacemark)
    /// A folder.
    case folder(KMLFolder)
    /// A nested document.
    case document(KMLDocument)
    /// A feature kept as XML (`NetworkLink`, `GroundOverlay`, `ScreenOverlay`, `PhotoOverlay`, `gx:Tour`, …).
    case unmodeled(KMLElement)

    /// The feature's name, if it has one.
    public var name: String? {
        switch self {
        case .placemark(let p): p.name
        case .folder(let f): f.name
        case .document(let d): d.name
        case .unmodeled(let e): e.child("name")?.text
        }
    }
}

/// Traversal of containers.
public protocol KMLContainer: KMLNode {
    /// The container's children.
    var features: [KMLFeature] { get set }
    /// Style selectors defined in the container.
    var styles: [KMLStyleSelector] { get set }
}

extension KMLFolder: KMLContainer {}
extension KMLDocument: KMLContainer {}

extension KMLContainer {
    /// Appends a child node: a placemark, folder or document (ArcGIS's `addChildNode(_:)`).
    ///
    /// Documents, folders and placemarks are values, not references as in ArcGIS, which has two consequences:
    /// - the container you add to must be a `var` (or build it in one expression instead:
    ///   ``KMLDocument/init(name:styles:features:)`` and ``KMLFolder/init(name:features:)`` take the children);
    /// - the node is copied when added, so give a placemark everything it carries, its style included, before you
    ///   add it (``KMLPlacemark/init(geometry:name:nodeDescription:style:styleUrl:)`` takes the style); changing your
    ///   own `placemark` afterwards does not change the copy in the container.
    ///
    /// A style shared by many placemarks can instead be added once with ``KMLDocument/addStyle(_:)`` and referenced
    /// by each placemark's `styleUrl` (`"#id"`), in any order.
    /// - Parameter node: The placemark, folder or document to append after the existing children.
    public mutating func addChildNode(_ node: some KMLNode) { features.append(node.feature) }

    /// Every placemark in the subtree, depth first, in document order.
    public var allPlacemarks: [KMLPlacemark] {
        var out: [KMLPlacemark] = []
        forEachPlacemark { out.append($0) }
        return out
    }

    /// Visits every placemark in the subtree, depth first, in document order.
    /// - Parameter body: Called for each placemark.
    public func forEachPlacemark(_ body: (KMLPlacemark) throws -> Void) rethrows {
        for f in features {
            switch f {
            case .placemark(let p): try body(p)
            case .folder(let c): try c.forEachPlacemark(body)
            case .document(let c): try c.forEachPlacemark(body)
            case .unmodeled: break
            }
        }
    }

    /// The number of `<Folder>`s in the subtree (nested documents are searched but not counted).
    public var folderCount: Int {
        features.reduce(0) { n, f in
            switch f {
            case .folder(let c): n + 1 + c.folderCount
            case .document(let c): n + c.folderCount
            default: n
            }
        }
    }

    /// Every style selector in the subtree, this container's first.
    public var allStyleSelectors: [KMLStyleSelector] {
        var out = styles
        for f in features {
            switch f {
            case .folder(let c): out += c.allStyleSelectors
            case .document(let c): out += c.allStyleSelectors
            default: break
            }
        }
        return out
    }
}

// MARK: - Short descriptions (the default print dumps the whole tree)

extension KMLPlacemark: CustomStringConvertible {
    /// `KMLPlacemark("<name>", <geometry type>)`; the `<description>` text is ``nodeDescription``.
    public var description: String {
        "KMLPlacemark(\(quotedName(name)), \(geometry?.typeName ?? "no geometry"))"
    }
}

extension KMLFolder: CustomStringConvertible {
    /// `KMLFolder("<name>", <n> features)`.
    public var description: String { "KMLFolder(\(quotedName(name)), \(featureCount(features)))" }
}

extension KMLDocument: CustomStringConvertible {
    /// `KMLDocument("<name>", <n> styles, <n> features)`.
    public var description: String {
        "KMLDocument(\(quotedName(name)), \(styles.count) style\(styles.count == 1 ? "" : "s"), \(featureCount(features)))"
    }
}

extension KMLFeature: CustomStringConvertible {
    /// The wrapped feature's description, or `KMLFeature(<element name>)` for an unmodeled one.
    public var description: String {
        switch self {
        case .placemark(let p): p.description
        case .folder(let f): f.description
        case .document(let d): d.description
        case .unmodeled(let e): "KMLFeature(\(e.name))"
        }
    }
}

/// A name in quotes, cut after 60 characters, or "unnamed".
private func quotedName(_ name: String?) -> String {
    guard let name else { return "unnamed" }
    return "\"" + (name.count > 60 ? name.prefix(60) + "…" : Substring(name)) + "\""
}

/// "1 feature", "3 features" (direct children).
private func featureCount(_ features: [KMLFeature]) -> String {
    "\(features.count) feature\(features.count == 1 ? "" : "s")"
}
