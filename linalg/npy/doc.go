// Package npy reads and writes the matrices and vectors of package linalg
// as NumPy files: .npy arrays (format versions 1.0, 2.0 and 3.0; float32
// and float64, one or two dimensions, C order, either byte order) and .npz
// archives of them, as numpy.save and numpy.savez write them.
//
// Read, ReadVector and ReadHeader take a path; ReadFrom and ReadVectorFrom
// a reader. Write, WriteVector and the streaming Writer (NewWriter) write a
// file atomically: a reader, or a later run after an interrupt, sees the
// old file or the whole new one, never a part. OpenMmap maps a .npy file
// instead of reading it, where the system allows. CreateNpz and OpenNpz
// write and read archives member by member.
//
// Malformed files give errors wrapping ErrFormat that name the file and the
// problem; a shape that does not fit gives one wrapping linalg.ErrShape.
package npy
