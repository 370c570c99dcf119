// Package deps holds no code: its test, deps_test.go, states the layering of
// this module's packages as a table of the imports each package may use, and
// fails when an import breaks it or when a package is missing from the table;
// stages_test.go checks that make test's stages reach every package that
// needs them (the race detector for those that start goroutines, every
// kernel set and arm64 for those that call the asm kernels).
//
// The layers, lowest first:
//
//   - internal/*: helpers (atomic files, random numbers, checkpoint files,
//     the saved-state frame) that know nothing of the model.
//   - asm: the SIMD kernels; no matrices, nothing of ours above internal/*.
//   - linalg: dense linear algebra on the SIMD kernels; no networks, no
//     kernel machines, no certificates, no files.
//   - linalg/npy, mnist, svm/dataset: array files and data readers on
//     linalg.
//   - svm/train: the training loop (Driver, Stepper, BatchStream,
//     checkpoints); it knows no model, kernel or matrix.
//   - ntk: networks and their infinite-width kernels; no training.
//   - svm, then svm/network, then svm/extract: kernel machines with their
//     exact and subgradient solvers, the network trainer, and the
//     extraction of Theorem 4.1 with the bound of Appendix B; svm/classify,
//     svm/ondemand, svm/falkon build on svm; none knows certificates.
//   - ibp: certificates; they take matrices and kernels, not machine types,
//     and reach the SIMD kernels only through linalg.
//   - cmd/internal/present/*: presentation (output files, plots, progress,
//     reports); it imports no model package (svm, svm/*, ntk, ibp), which
//     the test checks for every package there.
//   - cmd/internal/tiles: the Gram tiles of cluster jobs (the data of
//     every command is svm/dataset's).
//   - cmd/internal/experiment and cmd/internal/experiment/*: the skeleton
//     every experiment shares, and the experiments (equiv, genbound,
//     reproduce, benchdata, bench), which wire files to models;
//     cmd/ntksvm, the command.
//
// A new package goes into the table in deps_test.go with the imports it
// needs, in the lowest layer that has them.
package deps
