"""XLA's custom-call targets that call back into Python (print, logging, warnings at run
time). Programs are lowered with the CPU target; compiling for a GPU swaps in the GPU
one (`xla.compile`), so the lowering does not need to know the device."""
CPU_CALLBACK_TARGET = "xla_ffi_python_cpu_callback"
GPU_CALLBACK_TARGET = "xla_ffi_python_gpu_callback"
