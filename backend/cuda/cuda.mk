# backend/cuda/cuda.mk — the CUDA module, included by the top Makefile
# after BUILD, CPPFLAGS_ALL, CFLAGS_ALL, LDLIBS_ALL, LIB (every archive) and
# `all:` are defined (it names $(LIB) in a rule, and must not become the
# default goal; it restores .DEFAULT_GOAL anyway).  Lines the top Makefile
# adds:
#
#     include backend/cuda/cuda.mk            # after `all: $(CCLAB)`
#     $(LIB_BACKEND): $(GPU_OBJ)              # into libcclab-backend.a ($^ of its rule)
#     LDLIBS_BACKEND += $(GPU_LDLIBS)         # what links libcclab-backend.a (holds the module)
#     CPPFLAGS_ALL += $(GPU_CPPFLAGS)         # CCLAB_HAVE_CUDA, for C and .cu files
#     test-cuda: $(CUDA_TEST_BINS)            # and add test-cuda to .PHONY
#     	@NVCC="$(CUDA_NVCC)" bash scripts/test-cuda.sh $(CUDA_TEST)
#
# What it builds: with nvcc (on PATH, or /usr/local/cuda/bin/nvcc, or
# NVCC=/path/to/nvcc) the real module, gpu_cuda.cu + reduce.cu; without it,
# or with CCLAB_CUDA=0, gpu_none.c, whose every call says "cclab was built
# without CUDA".  gpu_sys.c (sysfs, arithmetic) is in both.
#
# Linking: the CUDA runtime statically (libcudart_static.a, what nvcc itself
# links by default) plus libstdc++ for the C++ runtime that nvcc's host code
# uses (__cxa_guard_*, the personality routine), -ldl -lpthread -lrt for
# cudart.  libcuda is NOT linked, not even the stub in lib64/stubs:
# cudart dlopen()s the driver's libcuda.so.1 at run time and gpu_cuda.cu
# reaches the driver API through cudaGetDriverEntryPointByVersion.  A
# binary linked against libcuda (or its stub, whose SONAME is libcuda.so.1)
# would not even start on a machine without the NVIDIA driver; this way it
# starts everywhere and cc_gpu_available() says "no CUDA device: ...".

cuda_mk_goal := $(.DEFAULT_GOAL)

CCLAB_CUDA ?= 1
ifeq ($(origin NVCC),undefined)
NVCC := $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
endif
CUDA_NVCC := $(if $(filter 0 no off,$(CCLAB_CUDA)),,$(strip $(NVCC)))

# sm_90 machine code for H100 / H200 (the target), plus compute_80 PTX that
# the driver compiles for anything newer or other (A100 sm_80, L40 sm_89,
# Blackwell) at first launch.  reduce.cu (40 kernels) takes 16 s for sm_90
# alone on 2 cores, 23 s with the PTX; override to taste, e.g.
# NVCC_GENCODE="-arch=native".
NVCC_GENCODE ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=compute_80
# nvcc's own warnings are errors too (-Werror all-warnings), as -Werror is
# for the C code; host code gets the project's -Wall -Wextra.
NVCC_FLAGS ?= -O2 -std=c++17 $(NVCC_GENCODE) --compiler-options -Wall,-Wextra,-Werror \
	      -Werror all-warnings

GPU_SRC := backend/cuda/gpu_sys.c
ifneq ($(CUDA_NVCC),)
GPU_SRC += backend/cuda/gpu_cuda.cu backend/cuda/reduce.cu
GPU_CPPFLAGS := -DCCLAB_HAVE_CUDA=1
CUDA_HOME ?= $(abspath $(dir $(CUDA_NVCC))..)
# lib64 (the .run / .deb toolkit layout, a link to targets/<arch>-linux/lib),
# else targets/*, else a distribution's multiarch folder (/usr/bin/nvcc).
CUDA_LIBDIR ?= $(patsubst %/,%,$(dir $(firstword $(wildcard \
	$(CUDA_HOME)/lib64/libcudart_static.a \
	$(CUDA_HOME)/targets/*-linux/lib/libcudart_static.a \
	$(CUDA_HOME)/lib/*-linux-gnu/libcudart_static.a))))
GPU_LDLIBS := $(if $(CUDA_LIBDIR),-L$(CUDA_LIBDIR)) -lcudart_static -lstdc++ -ldl -lpthread -lrt
else
GPU_SRC += backend/cuda/gpu_none.c
GPU_CPPFLAGS :=
GPU_LDLIBS :=
endif

GPU_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter %.c,$(GPU_SRC))) \
	   $(patsubst %.cu,$(BUILD)/obj/%.o,$(filter %.cu,$(GPU_SRC)))

# .c files use the top Makefile's $(BUILD)/obj/%.o rule; .cu files this one.
$(BUILD)/obj/backend/cuda/%.o: backend/cuda/%.cu
	@mkdir -p $(dir $@)
	$(CUDA_NVCC) $(CPPFLAGS_ALL) $(NVCC_FLAGS) -MMD -MP -c $< -o $@

# The test programs: not cmocka (they print tables and a bandwidth
# report), so not tests/test_*.c; these explicit rules beat the top
# Makefile's $(BUILD)/tests/% pattern.  test_cuda (C) checks the module on
# a GPU or prints SKIP; test_reduce_host (nvcc, host code only) runs the
# kernels' per-thread code on the CPU against core/dtype.c, so a build with
# nvcc checks the arithmetic and indexing even where there is no GPU.
CUDA_TEST := $(BUILD)/tests/cuda/test_cuda
$(CUDA_TEST): tests/cuda/test_cuda.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(LIB) $(LDLIBS_ALL)

ifneq ($(CUDA_NVCC),)
CUDA_HOST_TEST := $(BUILD)/tests/cuda/test_reduce_host
# -fno-strict-aliasing: the emulated threads read host bytes as uint4 and
# element types, as the device does.
$(CUDA_HOST_TEST): tests/cuda/test_reduce_host.cu $(LIB)
	@mkdir -p $(dir $@)
	$(CUDA_NVCC) $(CPPFLAGS_ALL) $(NVCC_FLAGS) -Xcompiler -fno-strict-aliasing \
		-MMD -MP -o $@ $< $(LIB) $(LDLIBS_ALL)
else
CUDA_HOST_TEST :=
endif
CUDA_TEST_BINS := $(CUDA_TEST) $(CUDA_HOST_TEST)

-include $(GPU_OBJ:.o=.d) $(CUDA_TEST).d $(if $(CUDA_HOST_TEST),$(CUDA_HOST_TEST).d)

.DEFAULT_GOAL := $(cuda_mk_goal)
