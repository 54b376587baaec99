#include "hexin.h"

#include "iw_err.h"
#include "iw_grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int iw_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int iw_hex_parse(const char *hex, uint8_t **out, size_t *len, char *msg, size_t msgcap)
{
	size_t n = strlen(hex);
	uint8_t *buf = malloc(n / 2 + 1);
	if (!buf) {
		snprintf(msg, msgcap, "out of memory for %zu hex digits", n);
		return -1;
	}
	size_t o = 0, digits = 0;
	int hi = -1;
	for (size_t i = 0; i < n; i++) {
		char c = hex[i];
		if (c == '0' && (hex[i + 1] == 'x' || hex[i + 1] == 'X') && hi < 0 &&
		    (i == 0 || strchr(" \t\n\r:-", hex[i - 1]))) {
			i++;
			continue;
		}
		int v = iw_hex_digit(c);
		if (v < 0) {
			if (strchr(" \t\n\r:-", c)) {
				if (hi >= 0) {
					snprintf(msg, msgcap, "hex octet split by a separator at character %zu; write each "
						 "octet as two digits", i + 1);
					free(buf);
					return -1;
				}
				continue;
			}
			snprintf(msg, msgcap, "'%c' at character %zu is not a hex digit", c >= 32 && c < 127 ? c : '?',
				 i + 1);
			free(buf);
			return -1;
		}
		digits++;
		if (hi < 0) {
			hi = v;
		} else {
			buf[o++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi >= 0) {
		snprintf(msg, msgcap, "odd number of hex digits (%zu): every octet needs two", digits);
		free(buf);
		return -1;
	}
	*out = buf;
	*len = o;
	return 0;
}

int iw_read_input(const char *path, size_t max, uint8_t **out, size_t *len, char *msg, size_t msgcap)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		snprintf(msg, msgcap, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	/* The buffer grows with the file up to one octet past max, which tells "too large" (a file
	 * of exactly max octets fits) without reading a huge file whole. */
	size_t cap = 4096, n = 0, limit = max + 1;
	uint8_t *buf = malloc(cap);
	int rc = 0;
	while (buf) {
		if (n > max) {
			snprintf(msg, msgcap, "'%s' is larger than %zu octets", path, max);
			rc = IW_ENOSPC;
			break;
		}
		if (n == cap) {
			size_t ncap = iw_grow_size(cap, cap, cap + 1, limit);
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0) {
			if (ferror(f)) {
				snprintf(msg, msgcap, "cannot read '%s': %s", path, strerror(errno));
				rc = -1;
			}
			break;
		}
	}
	if (!buf) {
		snprintf(msg, msgcap, "out of memory reading '%s'", path);
		rc = -1;
	}
	if (f != stdin)
		fclose(f);
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*len = n;
	return 0;
}
