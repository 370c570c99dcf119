package mnist

import (
	"fmt"
	"sync"
)

// FileCheck is one of the four MNIST files as Inspect found it: where it
// is and its content (Images for an images file, Labels for a labels
// file), or the error that stopped it (a *NotFoundError if it is missing).
type FileCheck struct {
	File   File
	Path   string
	Images *Images
	Labels *Labels
	Err    error
}

// Inspect finds and reads the four MNIST files of dir concurrently and
// returns one FileCheck per file, in Files order. Unlike Load it goes on
// past a missing or bad file, so that a report can show the state of
// every file; files that are not the canonical MNIST are read as Load
// reads them (see FileInfo.Problem).
func Inspect(dir string) []FileCheck {
	res := make([]FileCheck, len(Files))
	var wg sync.WaitGroup
	for i, f := range Files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &res[i]
			r.File = f
			if r.Path, r.Err = Find(dir, f); r.Err != nil {
				return
			}
			if f == TrainImages || f == TestImages {
				r.Images, r.Err = ReadImages(r.Path)
			} else {
				r.Labels, r.Err = ReadLabels(r.Path)
			}
		}()
	}
	wg.Wait()
	return res
}

// InspectSplits pairs the files of Inspect into the train (sets[0]) and
// test (sets[1]) splits. A split whose images or labels could not be read
// is nil with a nil error; one whose image and label counts differ is nil
// with an error naming both files.
func InspectSplits(files []FileCheck) (sets [2]*Set, errs [2]error) {
	for k, s := range []Split{Train, Test} {
		wantI, wantL := s.Files()
		var im *Images
		var lb *Labels
		for _, f := range files {
			switch f.File {
			case wantI:
				im = f.Images
			case wantL:
				lb = f.Labels
			}
		}
		switch {
		case im == nil || lb == nil:
		case im.Count != len(lb.Values):
			errs[k] = fmt.Errorf("%s: %s holds %d images but %s holds %d labels", s, im.Info.Path, im.Count, lb.Info.Path, len(lb.Values))
		default:
			sets[k] = &Set{Split: s, Images: im, Labels: lb}
		}
	}
	return sets, errs
}
