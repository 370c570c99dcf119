package main

import (
	"errors"
	"flag"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/svm/dataset"
)

// classFlags choose the two-class task of a binary command on data of
// more classes.
type classFlags struct{ positive, classes string }

func (c *classFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&c.positive, "positive", "", "binary task on data of more classes: this `class` is +1, every other −1")
	fs.StringVar(&c.classes, "classes", "", "binary task on data of more classes: keep only the two classes `a,b` (b is +1 unless --positive)")
}

// on reports whether a class flag is given.
func (c *classFlags) on() bool { return c.positive != "" || c.classes != "" }

// keep returns d with only the --classes kept.
func (c *classFlags) keep(d *dataset.Dataset) (*dataset.Dataset, error) {
	if c.classes == "" || !d.Labelled() {
		return d, nil
	}
	names := strings.Split(c.classes, ",")
	if len(names) != 2 || names[0] == "" || names[1] == "" || names[0] == names[1] {
		return nil, usageError("--classes %q: want two classes a,b", c.classes)
	}
	k, err := d.KeepClasses(names)
	if err != nil {
		return nil, usageError("--classes: %s", trimData(err))
	}
	return k, nil
}

// binary returns train and test (nil: none) as the points of the
// two-class task the flags choose: --classes keeps two classes,
// --positive names the class labelled +1, else the second class of the
// training set is. Data of more classes without either flag is refused
// with a message naming them. A test class the training set lacks is
// refused unless --positive names the task.
func (c *classFlags) binary(train, test *dataset.Dataset) (tr, te *points, err error) {
	if train, err = c.keep(train); err != nil {
		return nil, nil, err
	}
	pos := ""
	if train.Labelled() {
		pos, err = train.PositiveClass(c.positive)
		var ce *dataset.ClassesError
		switch {
		case errors.As(err, &ce):
			return nil, nil, usageError("%s; give --positive CLASS (that class +1, the rest −1) or --classes a,b", trimData(err))
		case err != nil:
			return nil, nil, usageError("--positive: %s", trimData(err))
		}
	}
	tr = newPoints(train, c.labels(train, pos))
	if test == nil {
		return tr, nil, nil
	}
	if test, err = c.keep(test); err != nil {
		return nil, nil, err
	}
	if c.positive == "" && test.Labelled() {
		for _, name := range test.Classes {
			if train.ClassIndex(name) < 0 {
				return nil, nil, usageError("%s has class %q, which %s has not: give --positive CLASS", test.Name, name, train.Name)
			}
		}
	}
	return tr, newPoints(test, c.labels(test, pos)), nil
}

// labels returns the ±1 labels of d for the positive class pos, nil for
// data without labels.
func (c *classFlags) labels(d *dataset.Dataset, pos string) []float64 {
	if !d.Labelled() {
		return nil
	}
	return d.Binary(pos)
}

// forMachine returns train and test as the points of a machine: a
// regression machine (regress) without class flags fits the labels as
// numbers when they are; otherwise the ±1 labels of the two-class task
// (binary).
func (c *classFlags) forMachine(regress bool, train, test *dataset.Dataset) (tr, te *points, err error) {
	if !regress || c.on() || !train.Labelled() {
		return c.binary(train, test)
	}
	y, err := train.Targets()
	if err != nil {
		return c.binary(train, test)
	}
	tr = newPoints(train, y)
	if test == nil {
		return tr, nil, nil
	}
	var yt []float64
	if test.Labelled() {
		if yt, err = test.Targets(); err != nil {
			return nil, nil, err
		}
	}
	return tr, newPoints(test, yt), nil
}

// checkNamed refuses, for a binary model or network that does not record
// which class it labels +1 (what names it), data of named classes without
// --positive or --classes: guessing could invert every label. Numeric
// classes (−1/1, 0/1) read as the ±1 of the paper's data.
func (c *classFlags) checkNamed(d *dataset.Dataset, what string) error {
	if c.on() || !d.Labelled() {
		return nil
	}
	for _, name := range d.Classes {
		if _, err := strconv.ParseFloat(name, 64); err != nil {
			return usageError("%s has named classes (%s) and %s does not record which one is +1: give --positive CLASS (or the --classes a,b it was trained with)",
				d.Name, strings.Join(d.Classes, ", "), what)
		}
	}
	return nil
}
