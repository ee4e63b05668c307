package commands

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/notes"
)

func (a *app) notesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notes",
		Short: dispatch.Notes.Short,
		Long: `Notes live in .agentic/notes/<name>.md (at most 200,000 bytes each); the
durable workspace memory is .agentic/MEMORY.md (at most 64,000 bytes), named
by --memory or the name MEMORY. Notes are never gated.`,
	}
	name := func(req any, args []string) {
		if len(args) > 0 {
			req.(*notes.Request).Name = args[0]
		}
	}
	memory := func(f *pflag.FlagSet, req any) {
		f.BoolVar(&req.(*notes.Request).Memory, "memory", false, "target the workspace memory, .agentic/MEMORY.md")
	}
	for _, action := range []string{"write", "append"} {
		c := a.verb(dispatch.Notes, action, action+" [NAME]", func(f *pflag.FlagSet, req any) {
			memory(f, req)
			f.Var(optionalString{&req.(*notes.Request).Content}, "content", "the text (default: read from stdin)")
		}, func(req any, args []string) {
			name(req, args)
			// Without --content (or content in --input) the text is stdin.
			if r := req.(*notes.Request); r.Content == nil {
				if raw, err := readAll(a.io.In); err == nil {
					text := string(raw)
					r.Content = &text
				}
			}
		})
		c.Args = cobra.MaximumNArgs(1)
		cmd.AddCommand(c)
	}
	read := a.verb(dispatch.Notes, "read", "read [NAME]", memory, name)
	read.Args = cobra.MaximumNArgs(1)
	del := a.verb(dispatch.Notes, "delete", "delete NAME", nil, name)
	del.Args = cobra.MaximumNArgs(1)
	list := a.verb(dispatch.Notes, "list", "list", func(f *pflag.FlagSet, req any) {
		f.IntVar(&req.(*notes.Request).Limit, "limit", 0, "most notes to show, 1-200 (default 100)")
	}, nil)
	list.Args = cobra.NoArgs
	cmd.AddCommand(read, list, del)
	return cmd
}
