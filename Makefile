# gpu_histogram: PGXS build.  `make`, `make install`, `make installcheck`.
#
# The engine in gpu/ is built by CMake (nvcc for the CUDA backend) into a
# static position-independent library that the extension links; a machine
# without nvcc gets a CPU-only build (or say WITH_CUDA=no).

EXTENSION = gpu_histogram
MODULE_big = gpu_histogram
OBJS = extension/module.o extension/errors.o extension/histogram_state.o \
       extension/histogram_wire.o \
       extension/aggregate.o extension/merge.o extension/buckets.o extension/quantiles.o \
       extension/gpu_binning.o extension/device_policy.o extension/observability.o extension/plan_args.o \
       extension/scan/plan/plan.o extension/scan/plan/partitions.o extension/scan/plan/group_estimate.o extension/scan/plan/brin_cost.o extension/scan/plan/ranges_cost.o extension/scan/plan/cached_cost.o \
       extension/scan/plan/plan_fit.o extension/scan/plan/scan_path.o extension/scan/plan/ordinary_order.o extension/scan/histogram_calls.o \
       extension/scan/shards/shard_plan.o extension/scan/shards/shard_exec.o extension/scan/shards/zone_explicit.o \
       extension/scan/exec/exec.o extension/scan/exec/rows_ungrouped.o extension/scan/grouped/grouped_rows.o extension/scan/grouped/grouped_state.o \
       extension/scan/exec/exec_read.o extension/scan/exec/exec_explain.o \
       extension/scan/grouped/grouping_hash.o extension/scan/grouped/grouping_shared.o extension/scan/grouped/grouping_gpu_cells.o extension/scan/grouped/leaf_errors.o extension/scan/grouped/leaf_group.o extension/scan/grouped/leaf_merge.o \
       extension/scan/heap/heap_reader.o extension/scan/heap/buffer_hints.o extension/scan/heap/batch_pins.o \
       extension/scan/heap/heap_blocks.o extension/scan/heap/heap_columns.o extension/scan/heap/numeric_values.o \
       extension/scan/heap/page_layout.o \
       extension/scan/summaries/page_ranges.o extension/scan/summaries/page_range_scan.o \
       extension/scan/quals/native_quals.o extension/scan/quals/native_match.o extension/scan/quals/native_values.o extension/scan/quals/fixed_exprs.o extension/scan/quals/heap_tuple_exprs.o extension/scan/quals/brin_ranges.o \
       extension/scan/keys/group_keys.o extension/scan/keys/time_keys.o extension/scan/keys/tsdb_bucket.o extension/scan/keys/key_tables.o \
       extension/scan/keys/column_span.o extension/scan/keys/column_key.o extension/scan/keys/time_key.o \
       extension/scan/keys/width_bucket_key.o extension/scan/keys/tsdb_key.o extension/scan/keys/expression_key.o extension/scan/keys/expression_bound.o extension/scan/keys/date_field_key.o extension/scan/keys/monotone_key.o extension/scan/keys/monotone_steps.o extension/scan/keys/zone_steps.o extension/scan/keys/value_key.o extension/scan/keys/key_quals.o extension/scan/keys/derived_key.o extension/scan/keys/value_memo.o extension/scan/keys/interval_memo.o extension/scan/keys/text_memo.o extension/scan/keys/text_ids.o extension/scan/keys/builtin_ops.o extension/scan/keys/key_params.o extension/scan/quals/qual_order.o \
       extension/scan/grouped/table/group_table.o extension/scan/grouped/table/group_agg.o extension/scan/grouped/table/group_checks.o extension/scan/grouped/table/group_page.o extension/scan/grouped/merge/shared_groups.o \
       extension/scan/grouped/table/tuple_spill.o \
       extension/scan/grouped/table/group_find.o extension/scan/grouped/table/group_rows.o extension/scan/grouped/table/value_aggs.o \
       extension/scan/offload/page_gpu.o extension/scan/grouped/table/group_gpu.o \
       extension/scan/offload/page_batches.o extension/scan/offload/host_cores.o extension/scan/offload/page_sink_histograms.o extension/scan/grouped/offload/page_sink_grouped.o \
       extension/scan/grouped/offload/grouped_pages.o \
       extension/moving_window.o \
       extension/time_aggregate.o extension/threshold_aggregate.o \
       extension/service/service.o extension/service/supervisor.o \
       extension/service/cuda_process.o extension/service/cuda_start.o extension/service/cuda_requests.o \
       extension/service/service_client.o extension/service/client_values.o extension/service/client_pages.o
DATA = extension/sql/gpu_histogram--1.0.sql extension/sql/gpu_histogram--1.0--1.1.sql \
       extension/sql/gpu_histogram--1.1--1.2.sql extension/sql/gpu_histogram--1.2--1.3.sql
PGFILEDESC = "gpu_histogram - width_bucket histograms binned on the GPU"

REGRESS = upgrade basic errors equality edges types nulls_empty merge buckets parallel grouping window moving_window device scan time thresholds time_range brin_ranges plan_args group_keys partitions spill grouped_pages dashboards scan_forms look_alikes error_order wide_rows where_lists where_text enums_domains where_mixed value_keys value_aggs quantiles where_or where_convert where_computed derived_keys local_time_keys matrix page_ranges one_group_pages interval_memo
REGRESS_OPTS = --load-extension=$(EXTENSION)

PG_CONFIG ?= pg_config
CMAKE ?= cmake
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
WITH_CUDA ?= $(if $(NVCC),yes,no)

ENGINE_BUILD = build
ENGINE_LIB = $(ENGINE_BUILD)/gpu/libgh_engine.a

# -fno-exceptions: no C++ exception can start in extension/ code; the engine
# catches its own.  -ffp-contract=off: the same rounding as width_bucket.
PG_CXXFLAGS = -std=c++17 -Wno-register -fno-exceptions -ffp-contract=off
# The microcode fix for Intel's JCC erratum (Skylake to Cascade Lake) slows
# a loop whose jump crosses or ends on a 32-byte boundary, so where such
# jumps fall after any edit moved the scan's loops by up to 15%.  Padded
# off those boundaries, on the dev VM's Xeon (same code, one run each):
# GROUP BY g 237 to 215 ms, the ungrouped thresholds 149 to 143, the
# hourly heatmap 205 to 189.  Only where the assembler takes the option.
GH_JCC_ALIGN := $(shell echo 'int f(void){return 0;}' | $(CXX) -Wa,-mbranches-within-32B-boundaries -x c++ -c -o /dev/null - 2>/dev/null && echo yes)
ifeq ($(GH_JCC_ALIGN),yes)
PG_CXXFLAGS += -Wa,-mbranches-within-32B-boundaries
endif
# Nothing interposes the library's own functions: calls between them are
# direct, and one file's small functions inline into its loops (the walk
# over a text column into each row's value, which went through the PLT).
# With -Bsymbolic below, on the dev VM: GROUP BY g 215 to 205 ms, g % 10
# 249 to 233, the hourly heatmap 189 to 177.
PG_CXXFLAGS += -fno-semantic-interposition

# The version is the control file's default_version, said once; the library
# reports it (PG_MODULE_MAGIC_EXT on 18), META.json and CHANGELOG.md follow
# it (test/check_release.py).
EXTVERSION := $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" $(EXTENSION).control)
PG_CPPFLAGS += -DGH_EXTVERSION='"$(EXTVERSION)"'
SHLIB_LINK = $(ENGINE_LIB) -lstdc++ -Wl,-Bsymbolic
ifeq ($(WITH_CUDA),yes)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
SHLIB_LINK += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread
endif
EXTRA_CLEAN = $(ENGINE_BUILD) results regression.diffs regression.out

# PGXS would emit LLVM bitcode for every object; the engine's CUDA objects
# have no bitcode rule, and the JIT gains nothing from this code.
override with_llvm = no
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

$(shlib): $(ENGINE_LIB)

# PGXS tracks no header dependencies: rebuild every object when any header changes.
$(OBJS): $(wildcard extension/*.h extension/scan/*.h extension/scan/*/*.h extension/scan/*/*/*.h extension/service/*.h gpu/*.h gpu/*/*.h)

# The objects of extension/ are compiled in the source tree for one server.
# build/pg_server names that server; when PG_CONFIG points at another one
# (`make PG_CONFIG=/usr/local/pgsql-18/bin/pg_config`), the file changes and
# every object is rebuilt against the new headers.  The engine in build/
# includes no PostgreSQL header and is kept.
PG_SERVER_ID := $(PG_CONFIG) $(VERSION)
PG_SERVER_STAMP = $(ENGINE_BUILD)/pg_server
ifneq ($(PG_SERVER_ID),$(shell cat $(PG_SERVER_STAMP) 2>/dev/null))
$(shell mkdir -p $(ENGINE_BUILD) && echo '$(PG_SERVER_ID)' > $(PG_SERVER_STAMP))
endif
$(OBJS): $(PG_SERVER_STAMP)

# The engine library only, rebuilt when its sources change: `make install`
# after `make` (as root, say) runs no CMake.  GH_CUDA_ARCHITECTURES (CMake's
# CUDA_ARCHITECTURES list, "75-real;90-real;90-virtual") builds the CUDA
# backend for other GPUs.  The unit tests and the kernel benchmark are the
# test command's: `make unittest`.
ENGINE_SOURCES = CMakeLists.txt gpu/CMakeLists.txt $(wildcard gpu/*.h $(addprefix gpu/*/*.,h cpp cu cuh))
ENGINE_CONFIGURE = $(CMAKE) -S . -B $(ENGINE_BUILD) -DGH_WITH_CUDA=$(if $(filter yes,$(WITH_CUDA)),ON,OFF) \
	    $(if $(NVCC),-DCMAKE_CUDA_COMPILER=$(NVCC)) -DCMAKE_BUILD_TYPE=Release \
	    $(if $(GH_CUDA_ARCHITECTURES),"-DGH_CUDA_ARCHITECTURES=$(GH_CUDA_ARCHITECTURES)") >/dev/null
$(ENGINE_LIB): $(ENGINE_SOURCES) $(if $(GH_CUDA_ARCHITECTURES),engine)
	$(ENGINE_CONFIGURE)
	$(CMAKE) --build $(ENGINE_BUILD) --target gh_engine -j $(shell nproc)
.PHONY: engine unittest
engine:
	$(ENGINE_CONFIGURE)
	$(CMAKE) --build $(ENGINE_BUILD) --target gh_engine -j $(shell nproc)

# The engine's GoogleTest suite (CTest) and the kernel benchmark; GPU tests skip without a GPU.
unittest:
	$(ENGINE_CONFIGURE)
	$(CMAKE) --build $(ENGINE_BUILD) -j $(shell nproc)
	cd $(ENGINE_BUILD) && ctest --output-on-failure
