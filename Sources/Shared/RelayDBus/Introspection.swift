/// `org.freedesktop.DBus.Introspectable` XML generation.
extension DBusConnection {
    func introspectionXML(for path: ObjectPath) -> String {
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>

            """
        xml += Self.standardInterfacesXML
        if let object = exports.objects[path] {
            xml += Self.propertiesXML
            if object.isObjectManager { xml += Self.objectManagerXML }
            for interface in object.interfaces { xml += Self.xml(for: interface) }
        }
        for child in exports.childNames(of: path) {
            xml += "  <node name=\"\(child)\"/>\n"
        }
        xml += "</node>\n"
        return xml
    }

    private static func xml(for interface: ExportedInterface) -> String {
        var xml = "  <interface name=\"\(escape(interface.name))\">\n"
        for method in interface.methods {
            xml += "    <method name=\"\(escape(method.name))\">\n"
            for type in (method.input ?? .empty).completeTypes {
                xml += "      <arg type=\"\(escape(type.rawValue))\" direction=\"in\"/>\n"
            }
            for type in method.output.completeTypes {
                xml += "      <arg type=\"\(escape(type.rawValue))\" direction=\"out\"/>\n"
            }
            xml += "    </method>\n"
        }
        for signal in interface.signals {
            xml += "    <signal name=\"\(escape(signal.name))\">\n"
            for type in signal.signature.completeTypes {
                xml += "      <arg type=\"\(escape(type.rawValue))\"/>\n"
            }
            xml += "    </signal>\n"
        }
        for property in interface.properties {
            xml += "    <property name=\"\(escape(property.name))\" type=\"\(escape(property.signature.rawValue))\""
            xml += " access=\"\(property.access.rawValue)\"/>\n"
        }
        xml += "  </interface>\n"
        return xml
    }

    private static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    private static let standardInterfacesXML = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg type="s" direction="out"/>
            </method>
          </interface>

        """

    private static let propertiesXML = """
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg type="s" direction="in"/>
              <arg type="s" direction="in"/>
              <arg type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg type="s" direction="in"/>
              <arg type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg type="s" direction="in"/>
              <arg type="s" direction="in"/>
              <arg type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg type="s"/>
              <arg type="a{sv}"/>
              <arg type="as"/>
            </signal>
          </interface>

        """

    private static let objectManagerXML = """
          <interface name="org.freedesktop.DBus.ObjectManager">
            <method name="GetManagedObjects">
              <arg type="a{oa{sa{sv}}}" direction="out"/>
            </method>
            <signal name="InterfacesAdded">
              <arg type="o"/>
              <arg type="a{sa{sv}}"/>
            </signal>
            <signal name="InterfacesRemoved">
              <arg type="o"/>
              <arg type="as"/>
            </signal>
          </interface>

        """
}
