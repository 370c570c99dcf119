package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/tiles"
	"github.com/ntksvm/ntksvm/svm/classify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
)

// "ntksvm cv --task i/N --out DIR" evaluates one share of the
// cross-validation's cells (kernel × repeat × fold, and class pair for
// one-vs-one SVMs) as a job-array task; "ntksvm cv --collect DIR" checks
// every task's results, picks the grid point and refits: the table and
// the model "ntksvm cv" gives in one process, bit for bit.

// cvTaskFlags are the flags of "ntksvm cv" that split the
// cross-validation into array tasks.
type cvTaskFlags struct{ task, collect string }

func (t *cvTaskFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&t.task, "task", "", "the problem, `regression|classification|i/N`: a regression or a classification (default: a regression when every label is a number "+
		"and there are more than 20 distinct ones), or i/N: evaluate task i/N of the cross-validation (0 ≤ i < N; auto/N takes i from $SLURM_ARRAY_TASK_ID "+
		"or $JOB_COMPLETION_INDEX) into the directory --out; a task already there and verified is left as it is")
	fs.StringVar(&t.collect, "collect", "", "combine the tasks' results in `DIR` (checked against --data and the grid flags), "+
		"choose the grid point and refit; --out writes the model")
}

// on reports whether a task flag is given.
func (t *cvTaskFlags) on() bool { return t.task != "" || t.collect != "" }

// runCVTasks runs "ntksvm cv" with --task or --collect.
func runCVTasks(ctx context.Context, e *env, df *dataFlags, t *cvTaskFlags, o classify.Options, out string) error {
	testPath := df.test
	if t.task != "" && t.collect != "" {
		return usageError("--task and --collect: give one (the tasks, then the collect step)")
	}
	if t.task != "" {
		if out == "" {
			return usageError("--out is required with --task: the task directory")
		}
		if testPath != "" {
			return usageError("--test with --task: the test data are scored by --collect")
		}
	} else if err := checkOutputs(outPath("--out", out), df.inputs()...); err != nil {
		return err
	}
	var i, n int
	var err error
	if t.task != "" {
		if i, n, err = tiles.ParseTile(t.task, os.Getenv); err != nil {
			return usageError("--task %v", err)
		}
	}
	train, test, err := df.openClasses(e)
	if err != nil {
		return err
	}
	if err := o.CheckClassWeights(train.Classes); err != nil {
		return usageError("--class-weight: %s", strings.TrimPrefix(err.Error(), "classify: "))
	}
	c := classify.New(o)
	p, err := c.PlanCV(train)
	if err != nil {
		return err
	}
	if t.task != "" {
		return runCVTask(ctx, e, c, train, p, i, n, out)
	}
	return collectCV(ctx, e, c, train, test, p, t.collect, testPath, out)
}

// collectCV runs "ntksvm cv --collect DIR": verifies the tasks of the plan
// p in dir, refits c and reports and saves it as "ntksvm cv" does.
func collectCV(ctx context.Context, e *env, c *classify.Classifier, train, test *data.Dataset, p *classify.CVPlan, dir, testPath, out string) error {
	m, err := tiles.LoadCV(dir)
	if err != nil {
		return err
	}
	want, err := tiles.NewCVManifest(p, m.Tasks)
	if err != nil {
		return err
	}
	if diff := tiles.CVDiff(m, want); diff != "" {
		return fmt.Errorf("%s holds the tasks of another cross-validation: %s", dir, diff)
	}
	results, seconds, err := tiles.CollectCV(dir, m)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "cross-validation: %d cells from %d verified tasks in %s (the tasks took %.1f s in all)\n",
		len(results), m.Tasks, dir, seconds)
	if err := c.FitCells(ctx, train, p, results); err != nil {
		return err
	}
	printCV(e.stdout, c)
	if test != nil {
		if err := reportClasses(ctx, e.stdout, c, test, testPath); err != nil {
			return err
		}
	}
	if out != "" {
		return saveClassifier(e, c, out)
	}
	return nil
}

// runCVTask evaluates task i of n into the directory dir.
func runCVTask(ctx context.Context, e *env, c *classify.Classifier, train *data.Dataset, p *classify.CVPlan, i, n int, dir string) error {
	m, err := tiles.NewCVManifest(p, n)
	if err != nil {
		return usageError("--task: %v", err)
	}
	if err := tiles.PrepareCV(dir, m); err != nil {
		return err
	}
	lo, hi := m.Cells[i][0], m.Cells[i][1]
	what := fmt.Sprintf("task %d/%d of the cross-validation: cells %d…%d of %d", i, n, lo, hi-1, len(p.Cells))
	if _, err := tiles.VerifyCVTask(dir, m, i); err == nil {
		fmt.Fprintf(e.stdout, "%s: already in %s and verified; nothing to do\n", what, dir)
		return nil
	}
	t0 := time.Now()
	res, err := c.EvaluateCells(ctx, train, p, lo, hi)
	if err != nil {
		return err
	}
	secs := time.Since(t0).Seconds()
	if err := tiles.WriteCVTask(dir, m, i, res, secs); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: evaluated in %.2f s, written to %s\n", what, secs, tiles.TaskName(i))
	return nil
}
