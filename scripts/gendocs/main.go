// Command gendocs writes aw's man pages (man/*.1) and shell completion
// scripts (completions/aw.{bash,zsh,fish,ps1}) from the cobra tree. Run it
// through scripts/gen-docs. The output depends only on the tree (the man
// date is a constant), so gendocs_test.go can fail CI when the committed
// files are stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/agentic-workspace/aw/commands"
)

// manDate is the date printed in every man page header. It is fixed so the
// pages are reproducible; bump it when the documented behaviour changes a lot.
var manDate = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Generated output, relative to the output directory.
const (
	ManDir         = "man"
	CompletionsDir = "completions"
)

func main() {
	out := flag.String("out", ".", "directory that receives man/ and completions/ (the repository root)")
	flag.Parse()
	if err := Generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// Generate writes man/ and completions/ under out, replacing whatever
// generated files were there (so a removed command loses its page).
func Generate(out string) error {
	root := commands.NewRootForDocs()
	// The help and completion commands are added lazily on Execute; add them
	// now so they get pages and completions like every other verb.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	disableAutoGenTag(root)

	manDir := filepath.Join(out, ManDir)
	compDir := filepath.Join(out, CompletionsDir)
	for _, d := range []string{manDir, compDir} {
		if err := clean(d); err != nil {
			return err
		}
	}

	header := &doc.GenManHeader{Section: "1", Date: &manDate, Source: "aw", Manual: "aw manual"}
	if err := doc.GenManTreeFromOpts(root, doc.GenManTreeOptions{Header: header, Path: manDir, CommandSeparator: "-"}); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}

	if err := fixPages(manDir); err != nil {
		return err
	}
	if err := topicSections(root, filepath.Join(manDir, "aw.1")); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "docs"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, ReferenceFile), reference(root), 0o644); err != nil {
		return err
	}

	completions := []struct {
		name string
		gen  func(*bytes.Buffer) error
	}{
		{"aw.bash", func(b *bytes.Buffer) error { return commands.WriteBashCompletion(root, b) }},
		{"aw.zsh", func(b *bytes.Buffer) error { return root.GenZshCompletion(b) }},
		{"aw.fish", func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) }},
		{"aw.ps1", func(b *bytes.Buffer) error { return root.GenPowerShellCompletionWithDesc(b) }},
	}
	for _, c := range completions {
		var buf bytes.Buffer
		if err := c.gen(&buf); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if err := os.WriteFile(filepath.Join(compDir, c.name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// clean creates dir or removes the generated files in it (*.1 pages and
// aw.* completions); anything else a person put there is left alone.
func clean(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.Type().IsRegular() && (strings.HasSuffix(name, ".1") || strings.HasPrefix(name, "aw.")) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// disableAutoGenTag drops cobra's "Auto generated ... <date>" footer, which
// each command decides for itself.
func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}

// manFixes are the edits every page gets after cobra wrote it: a boolean
// flag reads --pretty, not --pretty[=false] (cobra prints every default that
// way, which reads as if the flag took a value), and the examples section is
// EXAMPLES, as man-pages(7) names it.
var manFixes = strings.NewReplacer(`\fP[=false]`, `\fP`, ".SH EXAMPLE\n", ".SH EXAMPLES\n")

func fixPages(manDir string) error {
	pages, err := filepath.Glob(filepath.Join(manDir, "*.1"))
	if err != nil {
		return err
	}
	for _, p := range pages {
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if fixed := manFixes.Replace(string(raw)); fixed != string(raw) {
			if err := os.WriteFile(p, []byte(fixed), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// topicSections gives aw(1) the ENVIRONMENT, EXIT STATUS and FILES sections
// from the help topics of the same names (cobra writes no page for a topic).
func topicSections(root *cobra.Command, page string) error {
	raw, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, t := range []struct{ topic, section string }{{"environment", "ENVIRONMENT"}, {"exit-codes", "EXIT STATUS"}, {"files", "FILES"}} {
		c, _, err := root.Find([]string{t.topic})
		if err != nil || c.Name() != t.topic {
			return fmt.Errorf("no help topic %q for the %s section", t.topic, t.section)
		}
		fmt.Fprintf(&b, ".SH %s\n.nf\n", t.section)
		for _, line := range strings.Split(c.Long, "\n") {
			if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
				line = `\&` + line
			}
			b.WriteString(strings.ReplaceAll(line, `\`, `\e`) + "\n")
		}
		b.WriteString(".fi\n\n")
	}
	out := strings.Replace(string(raw), ".SH SEE ALSO", b.String()+".SH SEE ALSO", 1)
	return os.WriteFile(page, []byte(out), 0o644)
}
