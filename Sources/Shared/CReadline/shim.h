#ifndef RELAY_CREADLINE_SHIM_H
#define RELAY_CREADLINE_SHIM_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <readline/readline.h>
#include <readline/history.h>

/* Accessors for readline's global variables: Swift 6 refuses direct access to
   mutable C globals, and readline is only ever used on the main thread. */

/* Turns off readline's own signal handlers and environment changes; installs the
   completion hook; names the program for ~/.inputrc conditionals. */
static inline void relay_rl_configure(const char *name, rl_completion_func_t *completion) {
    rl_readline_name = name;
    rl_catch_signals = 0;
    rl_catch_sigwinch = 0;
    rl_change_environment = 0;
    rl_attempted_completion_function = completion;
}

/* Where readline reads keys and draws (NULL: stdin/stdout). */
static inline void relay_rl_set_streams(FILE *in, FILE *out) {
    rl_instream = in ? in : stdin;
    rl_outstream = out ? out : stdout;
}

static inline int relay_rl_point(void) { return rl_point; }
static inline void relay_rl_set_point(int point) { rl_point = point; }
static inline int relay_rl_end(void) { return rl_end; }
static inline const char *relay_rl_line_buffer(void) { return rl_line_buffer; }
static inline void relay_rl_completion_over(void) { rl_attempted_completion_over = 1; }

/* The most recent history entry's text, or NULL. */
static inline const char *relay_history_last(void) {
    if (history_length <= 0) return NULL;
    HIST_ENTRY *entry = history_get(history_base + history_length - 1);
    return entry ? entry->line : NULL;
}
#endif
