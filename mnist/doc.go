// Package mnist reads the MNIST handwritten-digit database from its IDX
// files and builds the binary classification tasks of Chen et al. (NeurIPS
// 2021, §6): digits 0 and 1, labels 0 → −1 and 1 → +1, pixels divided by 255
// and flattened row-major to d = 784, in file order (12,665 train and 2,115
// test examples).
//
// # Files
//
// [Read] parses any IDX file of unsigned bytes, raw or gzip-compressed (told
// apart by the gzip magic bytes 1f 8b, never by the file name), and checks
// everything it can: magic, type code, dimension count, sizes, truncation,
// trailing bytes. It never allocates from an unchecked header: a raw file's
// header must agree with the file size before anything is allocated, and a
// gzip stream's buffer grows only as decompressed data actually arrives.
//
// Every file's uncompressed content is hashed with SHA-256 and compared with
// the published checksums of the four canonical MNIST files ([Canonical]), so
// a re-compressed gzip of the same bytes is recognised and a corrupted or
// different dataset under a canonical name is reported as
// "checksum mismatch: not the canonical MNIST file". Such files still load
// ([LoadSplit], [Load]) — other datasets in the IDX format, such as
// Fashion-MNIST, are welcome — but [LoadBinary], which builds the paper's
// tasks, refuses them unless [Options].AllowNonCanonical is set, so that a
// reproduction never silently runs on the wrong data.
//
// # Location
//
// [Locate] picks the data directory: an explicit directory (the --mnist flag
// of the ntksvm command), else $NTKSVM_MNIST_DIR, else
// os.UserCacheDir()/ntksvm/mnist. When a file is missing the error lists
// every name tried, where, and how to provide the data. [Fetch] downloads the
// four files from public mirrors, verifies their content checksums and
// writes them atomically. The tests that need the real files find them
// through [RealDataDir] or [RealDataDirForTest]: in $NTKSVM_MNIST_DIR,
// skipping when it is unset and failing when it names no readable files.
package mnist
