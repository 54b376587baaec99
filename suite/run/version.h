/*
 * version.h - which build this is: the release and the commit it was built from, for
 * `iwspec --version` and every report's provenance. Only version.c sees the build's -D flags,
 * and the Makefile rebuilds it whenever the commit changes (a dirty tree is "<rev>-dirty").
 */
#ifndef IW_VERSION_H
#define IW_VERSION_H

extern const char iw_version[];
extern const char iw_git_rev[];

#endif
