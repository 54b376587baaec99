# iwspec-reflector (reflector/): not part of `make all`, since it needs rdma-core's development
# packages (librdmacm-dev, libibverbs-dev), which only a DUT host and `make interop` need.
#
#   make reflector     build/iwspec-reflector

REFLECTOR_SRC := $(wildcard reflector/*.c)
REFLECTOR_OBJ := $(REFLECTOR_SRC:%.c=$(BUILD)/%.o)

$(BUILD)/reflector/%.o: reflector/%.c
	@mkdir -p $(dir $@)
	@test -f /usr/include/rdma/rdma_cma.h -a -f /usr/include/infiniband/verbs.h || { \
		echo "make reflector: rdma-core's headers are missing: apt-get install librdmacm-dev libibverbs-dev" >&2; \
		exit 1; }
	$(CC) $(CFLAGS_ALL) -I$(DIR_engine) -Ireflector -MMD -MP -c $< -o $@

$(BUILD)/iwspec-reflector: $(REFLECTOR_OBJ) $(BUILD)/suite/engine/iw_err.o
	$(CC) $(CFLAGS_ALL) $(EXTRA_LDFLAGS) -o $@ $^ -lrdmacm -libverbs

.PHONY: reflector
reflector: $(BUILD)/iwspec-reflector
