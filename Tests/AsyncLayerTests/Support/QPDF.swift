import Foundation

/// Reads a written PDF's objects through `qpdf --json=2` (qpdf from Debian; `make deps` installs
/// it), and runs `qpdf --check`.
struct QPDF {
  struct Missing: Error, CustomStringConvertible {
    var description: String {
      "qpdf not found: install it (`make deps` or `apt-get install qpdf`) to run the PDF structure tests"
    }
  }

  /// The objects by reference ("12 0 R"), as qpdf's JSON gives their values.
  let objects: [String: Any]
  /// The page objects' references, in page order.
  let pages: [String]
  let trailer: [String: Any]

  static var isInstalled: Bool { (try? Poppler.executable("qpdf")) != nil }

  init(_ pdf: String) throws {
    guard Self.isInstalled else { throw Missing() }
    let output = try Self.run(["--json=2", "--json-key=qpdf", "--json-key=pages", pdf]).output
    let root = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
    var objects: [String: Any] = [:]
    var trailer: [String: Any] = [:]
    for (key, entry) in root["qpdf"].flatMap({ $0 as? [Any] })?.last as? [String: Any] ?? [:] {
      let value = (entry as? [String: Any])?["value"] ?? (entry as? [String: Any])?["stream"]
      if key == "trailer" {
        trailer = value as? [String: Any] ?? [:]
      } else if key.hasPrefix("obj:") {
        objects[String(key.dropFirst(4))] = value
      }
    }
    self.objects = objects
    self.trailer = trailer
    pages = (root["pages"] as? [[String: Any]] ?? []).compactMap { $0["object"] as? String }
  }

  /// `qpdf --check`'s output and exit status (0: clean, 3: warnings, 2: errors).
  static func check(_ pdf: String) throws -> (output: String, status: Int32) {
    guard isInstalled else { throw Missing() }
    return try run(["--check", pdf])
  }

  private static func run(_ arguments: [String]) throws -> (output: String, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try Poppler.executable("qpdf"))
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), process.terminationStatus)
  }

  /// An object's dictionary (a stream's dictionary for a stream), following a reference.
  func dictionary(_ value: Any?) -> [String: Any]? {
    if let reference = value as? String, let object = objects[reference] { return dictionary(object) }
    if let stream = value as? [String: Any], let inner = stream["dict"] as? [String: Any] { return inner }
    return value as? [String: Any]
  }

  func array(_ value: Any?) -> [Any]? {
    if let reference = value as? String, let object = objects[reference] { return object as? [Any] }
    return value as? [Any]
  }

  /// A PDF text string as qpdf writes it ("u:text").
  static func text(_ value: Any?) -> String? {
    guard let string = value as? String, string.hasPrefix("u:") else { return nil }
    return String(string.dropFirst(2))
  }

  var catalog: [String: Any]? { dictionary(trailer["/Root"]) }

  /// Every named destination of the catalog's `/Names /Dests` tree.
  var namedDestinations: [String: [Any]] {
    var result: [String: [Any]] = [:]
    func walk(_ node: [String: Any]) {
      if let names = array(node["/Names"]) {
        for pair in stride(from: 0, to: names.count - 1, by: 2) {
          guard let name = Self.text(names[pair]) else { continue }
          let target = array(names[pair + 1]) ?? array(dictionary(names[pair + 1])?["/D"])
          if let target { result[name] = target }
        }
      }
      for kid in array(node["/Kids"]) ?? [] { if let kid = dictionary(kid) { walk(kid) } }
    }
    if let names = dictionary(catalog?["/Names"]), let dests = dictionary(names["/Dests"]) { walk(dests) }
    return result
  }

  /// A destination as (page number from 1, top of the view in PDF units), resolving names.
  func resolve(_ destination: Any?) -> (page: Int, top: Double?)? {
    var target = array(destination)
    if target == nil, let name = Self.text(destination) { target = namedDestinations[name] }
    guard let target, let page = target.first as? String, let index = pages.firstIndex(of: page) else { return nil }
    // [page /XYZ left top zoom]
    let top = target.count > 3 ? (target[3] as? NSNumber)?.doubleValue : nil
    return (index + 1, top)
  }

  /// The link annotations of page `number` (from 1): their rectangles and where they lead.
  func links(onPage number: Int) -> [(rect: [Double], page: Int, top: Double?)] {
    guard let page = dictionary(pages[number - 1]) else { return [] }
    return (array(page["/Annots"]) ?? []).compactMap { entry in
      guard let annotation = dictionary(entry), annotation["/Subtype"] as? String == "/Link" else { return nil }
      let rect = (array(annotation["/Rect"]) ?? []).compactMap { ($0 as? NSNumber)?.doubleValue }
      var destination = annotation["/Dest"]
      if destination == nil, let action = dictionary(annotation["/A"]), action["/S"] as? String == "/GoTo" {
        destination = action["/D"]
      }
      guard let place = resolve(destination) else { return nil }
      return (rect, place.page, place.top)
    }
  }

  /// The outline, depth first: title, level (from 1) and destination.
  var outline: [(title: String, level: Int, page: Int, top: Double?)] {
    var result: [(String, Int, Int, Double?)] = []
    func walk(_ first: Any?, level: Int) {
      var item = dictionary(first)
      var guardCount = 0
      while let current = item, guardCount < 10_000 {
        guardCount += 1
        let place = resolve(current["/Dest"] ?? dictionary(current["/A"])?["/D"])
        result.append((Self.text(current["/Title"]) ?? "", level, place?.page ?? 0, place?.top))
        walk(current["/First"], level: level + 1)
        item = dictionary(current["/Next"])
      }
    }
    if let outlines = dictionary(catalog?["/Outlines"]) { walk(outlines["/First"], level: 1) }
    return result
  }

  /// The structure types (`/S`) of the structure tree's elements, depth first, with their depth.
  var structure: [(type: String, depth: Int)] {
    structureElements.map { ($0.type, $0.depth) }
  }

  /// The structure tree's elements, depth first: type (`/S`), depth and dictionary.
  var structureElements: [(type: String, depth: Int, dictionary: [String: Any])] {
    var result: [(String, Int, [String: Any])] = []
    func walk(_ kids: Any?, depth: Int) {
      let list = array(kids) ?? (kids.map { [$0] } ?? [])
      for kid in list {
        guard let element = dictionary(kid), let type = element["/S"] as? String else { continue }
        result.append((type, depth, element))
        walk(element["/K"], depth: depth + 1)
      }
    }
    if let root = dictionary(catalog?["/StructTreeRoot"]) { walk(root["/K"], depth: 0) }
    return result
  }

  /// The image XObjects (not their soft masks), as width × height.
  var images: [(width: Int, height: Int)] {
    let masks = Set(objects.values.compactMap { dictionary($0)?["/SMask"] as? String })
    return objects.compactMap { reference, value in
      guard !masks.contains(reference), let dict = dictionary(value), dict["/Subtype"] as? String == "/Image",
        let width = (dict["/Width"] as? NSNumber)?.intValue, let height = (dict["/Height"] as? NSNumber)?.intValue
      else { return nil }
      return (width, height)
    }
  }
}
