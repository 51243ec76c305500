#ifndef CMD_SHIM_H
#define CMD_SHIM_H
/* libmd: the BSD message-digest functions, as Debian packages them (libmd-dev). */
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sha1.h>
#include <sha2.h>
#endif
