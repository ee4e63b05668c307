package commands

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// TestEveryVerbHasAnExample: every command a user can run has an example,
// and every example names a real command with flags it has and arguments
// it accepts (each line is parsed as sh, every aw call in it checked
// against the tree).
func TestEveryVerbHasAnExample(t *testing.T) {
	a := &app{io: OSIO()}
	root := a.newRoot(nil)
	used := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || !sub.IsAvailableCommand() || sub.Name() == "completion" || sub.Name() == "help" {
				continue
			}
			walk(sub)
		}
		if c == root || c.HasSubCommands() || !c.Runnable() || c.Annotations[cobra.CommandDisplayNameAnnotation] != "" {
			return
		}
		path := strings.TrimPrefix(c.CommandPath(), "aw ")
		used[path] = true
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("aw %s has no example", path)
		}
	}
	walk(root)
	for path, lines := range examples {
		if !used[path] {
			t.Errorf("examples names %q, which is no command", path)
		}
		for _, line := range lines {
			for _, argv := range awCalls(t, line) {
				checkExample(t, line, argv)
			}
		}
	}
}

// awCalls returns the argv of every aw call in one example line.
func awCalls(t *testing.T, line string) [][]string {
	t.Helper()
	file, err := syntax.NewParser().Parse(strings.NewReader(line), "")
	if err != nil {
		t.Errorf("example %q is not sh: %v", line, err)
		return nil
	}
	var calls [][]string
	syntax.Walk(file, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		argv, err := expand.Fields(&expand.Config{}, call.Args...)
		if err != nil {
			t.Errorf("example %q: %v", line, err)
			return false
		}
		if argv[0] == "aw" {
			calls = append(calls, argv[1:])
		}
		return true
	})
	if len(calls) == 0 {
		t.Errorf("example %q calls no aw", line)
	}
	return calls
}

// checkExample finds the command argv names and parses its flags and
// arguments the way a run would.
func checkExample(t *testing.T, line string, argv []string) {
	t.Helper()
	a := &app{io: OSIO()}
	root := a.newRoot(argv)
	cmd, rest, err := root.Find(argv)
	if err != nil || cmd == root {
		t.Errorf("example %q: no command (%v)", line, err)
		return
	}
	cmd.SetOut(&bytes.Buffer{})
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("example %q: %v", line, err)
		return
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		t.Errorf("example %q: %v", line, err)
	}
}
