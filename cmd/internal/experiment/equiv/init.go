package equiv

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// network returns the network run rec starts from: the weights drawn from
// its seed, or the given initial weights (Config.Init), which must still
// be those the experiment started with.
func (e *experiment[T]) network(ctx context.Context, rec *RunResult) (*ntk.Network[T], error) {
	if e.cfg.Init == "" {
		return ntk.NewNetworkContext[T](ctx, e.ds.x.Cols, rec.Width, e.cfg.Depth, 1, 0, rec.Seed)
	}
	net, sum, err := loadInit[T](&e.cfg, e.ds.x.Cols)
	if err != nil {
		return nil, err
	}
	if sum != e.ds.init {
		return nil, fmt.Errorf("equiv: the initial weights %s changed while the experiment ran", e.cfg.Init)
	}
	return net, nil
}

// initSHA256 checks the initial weights of c on d inputs and returns
// their SHA-256, read in the element type of c's networks.
func initSHA256(c *Config, d int) (string, error) {
	var sum string
	var err error
	if c.Float64 {
		_, sum, err = loadInit[float64](c, d)
	} else {
		_, sum, err = loadInit[float32](c, d)
	}
	return sum, err
}

// loadInit reads the initial weights of c (σ_w = 1, no biases, as the
// experiment's networks), checks that they are a network of c's width and
// depth on d inputs, and returns it with the SHA-256 of its shapes and
// weights.
func loadInit[T linalg.Float](c *Config, d int) (*ntk.Network[T], string, error) {
	net, err := ntk.LoadNetwork[T](c.Init, 1, 0)
	if err != nil {
		return nil, "", configErr("init: %v", err)
	}
	if net.D != d || net.Width != c.Widths[0] || net.Depth != c.Depth {
		return nil, "", configErr("init %s is a network of width %d and depth %d on %d inputs; the experiment trains width %d and depth %d on %d inputs (give --width %d --depth %d, or other weights)",
			c.Init, net.Width, net.Depth, net.D, c.Widths[0], c.Depth, d, net.Width, net.Depth)
	}
	h := sha256.New()
	var b [8]byte
	for _, w := range net.W {
		for _, v := range []int{w.Rows, w.Cols} {
			h.Write(binary.LittleEndian.AppendUint64(b[:0], uint64(v)))
		}
		for i := range w.Rows {
			for _, v := range w.Row(i) {
				h.Write(binary.LittleEndian.AppendUint64(b[:0], math.Float64bits(float64(v))))
			}
		}
	}
	return net, hex.EncodeToString(h.Sum(nil)), nil
}
