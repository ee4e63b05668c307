package commands

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// NewRootForDocs builds the whole command tree for the doc and completion
// generators (scripts/gendocs). It never runs: its streams are empty and its
// environment is blank, so the generated text does not depend on who runs it.
func NewRootForDocs() *cobra.Command {
	a := &app{io: IO{
		In:       strings.NewReader(""),
		Out:      io.Discard,
		Err:      io.Discard,
		Getenv:   func(string) string { return "" },
		Terminal: func(any) bool { return false },
	}}
	return a.newRoot(nil)
}
