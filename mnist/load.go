package mnist

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// FileInfo describes a loaded IDX file.
type FileInfo struct {
	Path     string
	Gzip     bool     // the file is gzip-compressed
	Size     int64    // bytes on disk
	Dims     []int    // from the header, outermost first
	SHA256   [32]byte // of the uncompressed content
	Checksum Checksum // how the content compares with the canonical MNIST
	// IsCanonical reports that the content is one of the four canonical
	// MNIST files, and Content which one; it can be a canonical file under
	// another file's name, for which Checksum is ChecksumMismatch.
	IsCanonical bool
	Content     File
}

// newInfo fills a FileInfo for f read from path: the file name (without
// .gz) decides which canonical file is expected, the content checksum
// whether it is that file.
func newInfo(path string, f *IDX) FileInfo {
	info := FileInfo{Path: path, Gzip: f.Gzip, Dims: f.Dims, SHA256: f.SHA256, Size: -1}
	if st, err := os.Stat(path); err == nil {
		info.Size = st.Size()
	}
	named, isNamed := fileForName(filepath.Base(path))
	info.Content, info.IsCanonical = identify(f.SHA256)
	switch {
	case info.IsCanonical && (!isNamed || named == info.Content):
		info.Checksum = ChecksumOK
	case info.IsCanonical || isNamed:
		info.Checksum = ChecksumMismatch
	default:
		info.Checksum = ChecksumUnknown
	}
	return info
}

// fileForName returns the MNIST file a base name stands for.
func fileForName(base string) (File, bool) {
	for _, f := range Files {
		for _, c := range f.Candidates() {
			if base == c {
				return f, true
			}
		}
	}
	return 0, false
}

// Problem returns "" for a canonical file, else one line saying what is
// wrong with its checksum.
func (i *FileInfo) Problem() string {
	switch {
	case i.Checksum == ChecksumOK:
		return ""
	case i.Checksum == ChecksumMismatch && i.IsCanonical:
		return fmt.Sprintf("%s: %v (its content is the canonical %s)", i.Path, i.Checksum, i.Content)
	default:
		return fmt.Sprintf("%s: %v", i.Path, i.Checksum)
	}
}

// Images is a file of grey-scale images: Count images of Rows×Cols pixels,
// 0 (background) to 255, each stored row-major.
type Images struct {
	Count, Rows, Cols int
	Pixels            []byte // Count·Rows·Cols bytes, image after image
	Info              FileInfo
}

// Image returns the pixels of image i, sharing the storage of im.Pixels.
// It panics if i is out of range.
func (im *Images) Image(i int) []byte {
	d := im.Rows * im.Cols
	return im.Pixels[i*d : (i+1)*d : (i+1)*d]
}

// Labels is a file of class labels, each 0…9.
type Labels struct {
	Values []byte
	Info   FileInfo
}

// ReadImages reads an IDX image file (magic 0x00000803: unsigned bytes,
// three dimensions), raw or gzip. Errors name the file and the problem.
func ReadImages(path string) (*Images, error) {
	f, err := readFile(path, "an image", 3)
	if err != nil {
		return nil, err
	}
	if len(f.Dims) != 3 {
		return nil, fmt.Errorf("%s: %w: magic number 0x%08x has %d dimensions; an image file has 3 (magic 0x00000803)",
			path, ErrFormat, 0x800+len(f.Dims), len(f.Dims))
	}
	if f.Dims[1] == 0 || f.Dims[2] == 0 {
		return nil, fmt.Errorf("%s: %w: images of %d×%d pixels", path, ErrFormat, f.Dims[1], f.Dims[2])
	}
	return &Images{Count: f.Dims[0], Rows: f.Dims[1], Cols: f.Dims[2], Pixels: f.Data, Info: newInfo(path, f)}, nil
}

// ReadLabels reads an IDX label file (magic 0x00000801: unsigned bytes, one
// dimension), raw or gzip, and checks that every label is 0…9.
func ReadLabels(path string) (*Labels, error) {
	f, err := readFile(path, "a label", 1)
	if err != nil {
		return nil, err
	}
	if len(f.Dims) != 1 {
		return nil, fmt.Errorf("%s: %w: magic number 0x%08x has %d dimensions; a label file has 1 (magic 0x00000801)",
			path, ErrFormat, 0x800+len(f.Dims), len(f.Dims))
	}
	for i, v := range f.Data {
		if v > 9 {
			return nil, fmt.Errorf("%s: %w: label %d (of %d) is %d; labels are 0…9", path, ErrFormat, i, len(f.Data), v)
		}
	}
	return &Labels{Values: f.Data, Info: newInfo(path, f)}, nil
}

// Split is one of MNIST's two splits.
type Split int

// The splits.
const (
	Train Split = iota // 60,000 examples
	Test               // 10,000 examples (the t10k files)
)

// String returns "train" or "test".
func (s Split) String() string {
	switch s {
	case Train:
		return "train"
	case Test:
		return "test"
	}
	return fmt.Sprintf("mnist.Split(%d)", int(s))
}

// Files returns the images and labels files of s.
func (s Split) Files() (images, labels File) {
	if s == Test {
		return TestImages, TestLabels
	}
	return TrainImages, TrainLabels
}

// Set is one split: images and their labels, in file order.
type Set struct {
	Split  Split
	Images *Images
	Labels *Labels
}

// Len returns the number of examples.
func (s *Set) Len() int { return s.Images.Count }

// Counts returns how many examples have each label.
func (s *Set) Counts() [10]int {
	var c [10]int
	for _, v := range s.Labels.Values {
		c[v]++
	}
	return c
}

// ErrChecksum is wrapped by the error of Verify and LoadBinary for files
// that are not the canonical MNIST.
var ErrChecksum = errors.New("checksum mismatch: not the canonical MNIST file")

// Verify returns nil if both files of s are the canonical MNIST files of
// its split, else an error wrapping ErrChecksum that names them.
func (s *Set) Verify() error {
	wantI, wantL := s.Split.Files()
	var bad []string
	for _, c := range []struct {
		info *FileInfo
		want File
	}{{&s.Images.Info, wantI}, {&s.Labels.Info, wantL}} {
		switch {
		case c.info.Checksum == ChecksumOK && c.info.Content == c.want:
		case c.info.Checksum == ChecksumOK:
			bad = append(bad, fmt.Sprintf("%s is the canonical %s, not %s", c.info.Path, c.info.Content, c.want))
		default:
			bad = append(bad, fmt.Sprintf("%s (sha256 %x)", c.info.Path, c.info.SHA256))
		}
	}
	if bad != nil {
		return fmt.Errorf("mnist %s: %w: %s", s.Split, ErrChecksum, strings.Join(bad, "; "))
	}
	return nil
}

// LoadSplit reads the images and labels of split s from dir, concurrently,
// and checks that their counts agree. Files are found with Find. Files that
// are not the canonical MNIST still load; see Set.Verify.
func LoadSplit(dir string, s Split) (*Set, error) {
	sets, err := load(dir, s)
	if err != nil {
		return nil, err
	}
	return sets[0], nil
}

// Load reads both splits from dir, all four files concurrently.
func Load(dir string) (train, test *Set, err error) {
	sets, err := load(dir, Train, Test)
	if err != nil {
		return nil, nil, err
	}
	return sets[0], sets[1], nil
}

func load(dir string, splits ...Split) ([]*Set, error) {
	for _, s := range splits {
		if s != Train && s != Test {
			return nil, fmt.Errorf("mnist: invalid split %d", int(s))
		}
	}
	// Find everything first, so a missing file is reported before any
	// decoding starts.
	type job struct {
		path string
		im   *Images
		lb   *Labels
		err  error
	}
	jobs := make([]job, 2*len(splits))
	missing := &NotFoundError{Dir: dir}
	for i, s := range splits {
		fi, fl := s.Files()
		for k, f := range []File{fi, fl} {
			p, err := Find(dir, f)
			var nf *NotFoundError
			switch {
			case errors.As(err, &nf):
				missing.Missing = append(missing.Missing, f)
			case err != nil:
				return nil, err
			}
			jobs[2*i+k].path = p
		}
	}
	if len(missing.Missing) > 0 {
		return nil, missing
	}
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j := &jobs[i]
			if i%2 == 0 {
				j.im, j.err = ReadImages(j.path)
			} else {
				j.lb, j.err = ReadLabels(j.path)
			}
		}()
	}
	wg.Wait()
	var errs []error
	for _, j := range jobs {
		errs = append(errs, j.err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sets := make([]*Set, len(splits))
	for i, s := range splits {
		im, lb := jobs[2*i].im, jobs[2*i+1].lb
		if im.Count != len(lb.Values) {
			return nil, fmt.Errorf("mnist %s: %w: %s holds %d images but %s holds %d labels",
				s, ErrFormat, im.Info.Path, im.Count, lb.Info.Path, len(lb.Values))
		}
		sets[i] = &Set{Split: s, Images: im, Labels: lb}
	}
	return sets, nil
}
