#ifndef RELAY_CREADLINE_SHIM_H
#define RELAY_CREADLINE_SHIM_H
#include <stdio.h>
#include <readline/readline.h>
#include <readline/history.h>
#endif
