package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCVTasks: "ntksvm cv --task i/N" for every i, in any order and
// again, then "ntksvm cv --collect", print the table of "ntksvm cv" and
// write its model file, bit for bit; for one-vs-one SVMs of three classes
// (cells by class pair) and for kernel ridge regression.
func TestCVTasks(t *testing.T) {
	dir := t.TempDir()
	csv := writeTable(t, dir, "iris.csv", 60, 4, 0)
	grid := []string{"--data", csv, "--kernel", "ntk,nngp", "--depth", "1-2", "--C", "0.1,1,10", "--folds", "3", "--seed", "5"}
	for _, tc := range []struct {
		name  string
		flags []string
		tasks []int
	}{
		{"svm ovo", nil, []int{1, 5, 36}},
		{"krr", []string{"--machine", "krr"}, []int{4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flags := append(append([]string{}, grid...), tc.flags...)
			ref := filepath.Join(dir, tc.name+"-ref.model")
			table := mustRun(t, append(append([]string{"cv"}, flags...), "--out", ref)...)
			for _, n := range tc.tasks {
				tasks := filepath.Join(dir, fmt.Sprintf("%s-tasks-%d", tc.name, n))
				for k := range n {
					i := (k*7 + 3) % n // any order (7 is prime to every n here)
					arg := fmt.Sprintf("%d/%d", i, n)
					if k == 0 {
						t.Setenv("SLURM_ARRAY_TASK_ID", fmt.Sprint(i))
						arg = fmt.Sprintf("auto/%d", n)
					}
					mustRun(t, append(append([]string{"cv"}, flags...), "--task", arg, "--out", tasks)...)
				}
				again := mustRun(t, append(append([]string{"cv"}, flags...), "--task", fmt.Sprintf("0/%d", n), "--out", tasks)...)
				if !strings.Contains(again, "nothing to do") {
					t.Errorf("%d tasks: task 0 again: %q", n, again)
				}
				model := filepath.Join(dir, fmt.Sprintf("%s-%d.model", tc.name, n))
				got := mustRun(t, append(append([]string{"cv"}, flags...), "--collect", tasks, "--out", model)...)
				if cut(got) != cut(table) {
					t.Errorf("%d tasks: the table differs:\n%s\nin one process:\n%s", n, got, table)
				}
				sameFiles(t, model, ref)
			}
		})
	}
}

// cut drops the line of the fit's time from the output of "ntksvm cv".
func cut(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, ", fitted in"); i >= 0 {
			l = l[:i]
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// TestCVTasksRefused: a missing, truncated or foreign task file, a task
// directory of other options, and bad task flags are refused with the
// task or the flag named.
func TestCVTasksRefused(t *testing.T) {
	dir := t.TempDir()
	csv := writeTable(t, dir, "iris.csv", 45, 3, 0)
	grid := []string{"cv", "--data", csv, "--depth", "1-2", "--C", "1,10", "--folds", "3", "--sigma-b", "0"}
	run := func(dir string, seed string, n int) {
		for i := range n {
			mustRun(t, append(append([]string{}, grid...), "--seed", seed, "--task", fmt.Sprintf("%d/%d", i, n), "--out", dir)...)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	run(a, "0", 4)
	run(b, "1", 4)
	collect := append(append([]string{}, grid...), "--seed", "0", "--collect", a)
	mustRun(t, collect...)
	name := func(i int) string { return filepath.Join(a, fmt.Sprintf("task-%04d.json", i)) }
	damage := []struct {
		name string
		do   func() error
		want string
	}{
		{"missing", func() error { return os.Remove(name(2)) }, "task 2: task-0002.json (cells 9…12) is missing; run task 2/4"},
		{"truncated", func() error {
			b, err := os.ReadFile(name(1))
			if err != nil {
				return err
			}
			return os.WriteFile(name(1), b[:len(b)/2], 0o644)
		}, "task 1: task-0001.json is truncated"},
		{"foreign", func() error {
			b, err := os.ReadFile(filepath.Join(b, "task-0003.json"))
			if err != nil {
				return err
			}
			return os.WriteFile(name(3), b, 0o644)
		}, "task 3: task-0003.json is a task of another cross-validation"},
		{"edited", func() error {
			b, err := os.ReadFile(name(0))
			if err != nil {
				return err
			}
			s := strings.Replace(string(b), `"wins":["`, `"wins":["1`, 1)
			return os.WriteFile(name(0), []byte(s), 0o644)
		}, "task 0: task-0000.json: its results do not match their SHA-256"},
	}
	for _, d := range damage {
		if err := d.do(); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, collect...)
		if code != 1 || !strings.Contains(stderr, d.want) {
			t.Errorf("%s: exit %d, %q; want %q", d.name, code, stderr, d.want)
		}
	}
	checkRefusals(t, grid, []cliRefusal{
		{[]string{"--seed", "1", "--collect", a}, 1, "holds the tasks of another cross-validation: 3 folds × 1 repeats, seed 0 there; 3 folds × 1 repeats, seed 1 here"},
		{[]string{"--C", "1,100", "--collect", a}, 1, "holds the tasks of another cross-validation: options"},
		{[]string{"--seed", "1", "--task", "0/5", "--out", b}, 1, "holds the tasks of another cross-validation: 4 tasks there, 5 here"},
		{[]string{"--task", "0/4", "--collect", a}, 2, "--task and --collect"},
		{[]string{"--task", "0/4"}, 2, "--out is required"},
		{[]string{"--task", "4/4", "--out", b}, 2, "want 0…3"},
		{[]string{"--task", "0/99", "--out", filepath.Join(dir, "c")}, 2, "99 tasks for 18 cells"},
		{[]string{"--task", "0/4", "--test", csv, "--out", b}, 2, "--test with --task"},
		{[]string{"--collect", filepath.Join(dir, "none")}, 1, "not a task directory"},
	})
}
