/* version.c - the build's identity (version.h). */
#include "version.h"

const char iw_version[] = IWSPEC_VERSION;
const char iw_git_rev[] = IWSPEC_GIT_REV;
