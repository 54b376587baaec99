/*
 * vec_schema.h - the vector files' JSON Schema, as text (vec_schema.c).
 */
#ifndef IW_VEC_SCHEMA_H
#define IW_VEC_SCHEMA_H

extern const char iw_vec_schema[];

#endif
