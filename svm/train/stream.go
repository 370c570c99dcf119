package train

import (
	"bytes"
	"math"
	"math/rand/v2"

	"github.com/ntksvm/ntksvm/internal/frame"
	"github.com/ntksvm/ntksvm/internal/rng"
)

// streamSeq is the second word of the PCG state; it makes the streams of
// this package differ from other users of the same seed. ("ntksvm" in ASCII.)
const streamSeq = 0x6e746b73766d

// BatchStream is the seeded minibatch order shared by the kernel-machine
// trainer and the network trainer: both sides must see the same index
// sequence (in the authors' train_sgd.py they do not: each evaluation of
// the network draws seeds from torch's global RNG, so after the first
// epoch its shuffles differ from the SVM's). Each epoch is a permutation of 0…n−1 cut into
// batches of B in order; the last, partial batch is kept (drop_last=False),
// so an epoch has ⌈n/B⌉ steps: 198 for n = 12,665 and B = 64.
//
// The permutation of epoch e (from 0) is a Fisher–Yates shuffle of the
// identity: for i = n−1 down to 1, swap i with j uniform in [0, i], where j
// comes from Lemire's multiply-shift method with rejection on the 64-bit
// outputs of PCG-DXSM (math/rand/v2.NewPCG(seed, 0x6e746b73766d)); one
// generator runs through all epochs. Two streams with the same n, B and
// seed yield the same batches on every platform.
type BatchStream struct {
	n, batch int
	rng      *rand.PCG // rng.NewPCG(seed, streamSeq)
	perm     []int
	epoch    int // epoch of the current permutation
	pos      int // next position in perm
}

// NewBatchStream returns the stream of batches of size batch over n
// indices. It returns an error unless n ≥ 1 and 1 ≤ batch.
// A batch ≥ n gives the full batch (the whole permutation) every step.
func NewBatchStream(n, batch int, seed uint64) (*BatchStream, error) {
	if n < 1 || batch < 1 {
		return nil, inputErr("BatchStream: need n ≥ 1 and batch ≥ 1, got n=%d batch=%d", n, batch)
	}
	s := &BatchStream{n: n, batch: min(batch, n), rng: rng.NewPCG(seed, streamSeq), perm: make([]int, n), epoch: -1}
	s.pos = n
	return s, nil
}

// N returns the number of indices the stream permutes.
func (s *BatchStream) N() int { return s.n }

// StepsPerEpoch returns ⌈n/B⌉.
func (s *BatchStream) StepsPerEpoch() int { return (s.n + s.batch - 1) / s.batch }

// Next returns the next batch and the epoch (from 0) it belongs to. The
// slice is owned by the stream and valid until the next call.
func (s *BatchStream) Next() (batch []int, epoch int) {
	if s.pos >= s.n {
		s.shuffle()
	}
	end := min(s.pos+s.batch, s.n)
	b := s.perm[s.pos:end:end]
	s.pos = end
	return b, s.epoch
}

func (s *BatchStream) shuffle() {
	for i := range s.perm {
		s.perm[i] = i
	}
	for i := s.n - 1; i > 0; i-- {
		j := int(rng.Below(s.rng, uint64(i)+1))
		s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
	}
	s.epoch++
	s.pos = 0
}

// unread gives back batch, the last one Next returned, so that the next
// call to Next returns it again (a step abandoned before its update). A
// permutation drawn for it stays drawn, as after peek: the batches are
// the same as if Next had not been called.
func (s *BatchStream) unread(batch []int) {
	s.pos -= len(batch)
}

// nextEpoch returns the epoch of the batch the next call to Next returns,
// without drawing it.
func (s *BatchStream) nextEpoch() int {
	if s.pos >= s.n {
		return s.epoch + 1
	}
	return s.epoch
}

// peek returns the batch the next call to Next returns, without
// consuming it (at the end of an epoch it draws the next permutation,
// which Next then uses: the batches are the same as without the peek).
func (s *BatchStream) peek() []int {
	if s.pos >= s.n {
		s.shuffle()
	}
	end := min(s.pos+s.batch, s.n)
	return s.perm[s.pos:end:end]
}

// MarshalBinary implements encoding.BinaryMarshaler: it returns the
// stream's whole state (n, B, the PCG state, the current permutation, its
// epoch and the position in it), so that a stream restored by
// UnmarshalBinary continues with exactly the batches this one would.
func (s *BatchStream) MarshalBinary() ([]byte, error) {
	rng, err := s.rng.MarshalBinary()
	if err != nil {
		return nil, err
	}
	var e frame.Enc
	e.B = make([]byte, 0, 48+len(rng)+8*len(s.perm))
	e.Int(s.n)
	e.Int(s.batch)
	e.Int(s.epoch)
	e.Int(s.pos)
	e.Bytes(rng)
	for _, i := range s.perm {
		e.Int(i)
	}
	var b bytes.Buffer
	if err := frame.Write(&b, frame.StreamMagic, e.B); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler: it replaces the
// stream's state (n and B included) with one written by MarshalBinary. A
// truncated, corrupted or inconsistent state is rejected with an error
// wrapping ErrState, and the stream is left as it was.
func (s *BatchStream) UnmarshalBinary(data []byte) error {
	r := bytes.NewReader(data)
	payload, err := frame.Read(r, frame.StreamMagic)
	if err != nil {
		return err
	}
	if r.Len() > 0 {
		return frame.Errorf("%s: %d trailing bytes", frame.Name(frame.StreamMagic), r.Len())
	}
	d := frame.Dec{B: payload, What: frame.Name(frame.StreamMagic)}
	n, batch, epoch, pos := d.Int(), d.Int(), d.Int(), d.Int()
	rngState := d.Bytes()
	var perm []int
	if d.Err == nil && n >= 1 {
		raw := d.Take(uint64(n), 8)
		perm = make([]int, len(raw)/8)
		sub := frame.Dec{B: raw}
		for i := range perm {
			perm[i] = sub.Int()
		}
	}
	if err := d.Done(); err != nil {
		return err
	}
	switch {
	case n < 1 || batch < 1 || batch > n:
		return frame.Errorf("BatchStream state: n = %d, batch = %d", n, batch)
	case epoch < -1 || pos < 0 || pos > n || epoch == -1 && pos != n:
		return frame.Errorf("BatchStream state: epoch %d, position %d of %d", epoch, pos, n)
	}
	if epoch >= 0 {
		seen := make([]bool, n)
		for _, i := range perm {
			if i < 0 || i >= n || seen[i] {
				return frame.Errorf("BatchStream state: the order is not a permutation of 0…%d", n-1)
			}
			seen[i] = true
		}
	}
	rng := new(rand.PCG)
	if err := rng.UnmarshalBinary(rngState); err != nil {
		return frame.Errorf("BatchStream state: generator: %v", err)
	}
	*s = BatchStream{n: n, batch: batch, rng: rng, perm: perm, epoch: epoch, pos: pos}
	return nil
}

// LogSteps returns the evaluation steps of the authors' code (step_test in
// train_sgd.py): the sorted unique values of round(logspace(0, log10(total),
// count)), rounding half to even as numpy does. Steps count from 1; step 1
// is the initial state. For total = 59,400 and count = 300 there are 236.
// It returns nil if total < 1 or count < 1.
func LogSteps(total, count int) []int {
	if total < 1 || count < 1 {
		return nil
	}
	var out []int
	hi := math.Log10(float64(total))
	for k := range count {
		var e float64
		if count > 1 {
			e = float64(k) * (hi / float64(count-1)) // as numpy's linspace: k·step
		} else {
			e = 0 // numpy's logspace with num=1 returns the start only
		}
		if k == count-1 && count > 1 {
			e = hi
		}
		v := int(math.RoundToEven(math.Pow(10, e)))
		if len(out) == 0 || v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}
