#ifndef RELAY_CDBUS_SHIM_H
#define RELAY_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
