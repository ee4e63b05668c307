package commands

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/edit"
)

func (a *app) editCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "edit",
		Short: dispatch.Edit.Short,
		Long: `Edits are all-or-nothing transactions. preview plans one and shows its diff;
apply previews and commits (gated like a commit); commit, rollback, show and
list take a transaction id. Operations (JSON):

  {"type":"create","path":"a.go","content":"...","overwrite":false}
  {"type":"rewrite","path":"a.go","content":"...","create_if_missing":false}
  {"type":"replace","path":"a.go","search":"old","replacement":"new","expected_matches":1}
  {"type":"replace","path":"a.go","search":"old","replacement":"new","replace_all":true}
  {"type":"splice","path":"a.go","start_line":20,"delete_count":3,"content":"..."}
  {"type":"copy","from":"a.go","to":"b.go","overwrite":false}
  {"type":"move","from":"a.go","to":"b.go","overwrite":false}
  {"type":"delete","path":"a.go","ignore_missing":false}
  {"type":"mkdir","path":"dir/sub"}

Any operation may carry expect_sha256 (the hash from a read) and
allow_line_numbers. Text copied from a read matches a CRLF file, and new
text is written with the file's line endings; a byte order mark is kept.`,
	}
	for _, action := range []string{"preview", "apply"} {
		var ops []string
		c := a.verb(dispatch.Edit, action, action+" (--op 'JSON'... | --input FILE|-)", func(f *pflag.FlagSet, req any) {
			f.StringArrayVar(&ops, "op", nil, "one operation as JSON (repeatable, applied in order after any from --input)")
			f.StringVar(&req.(*edit.PreviewRequest).IdempotencyKey, "idempotency-key", "", "return the same transaction when the same operations are retried")
		}, nil)
		c.Args = cobra.NoArgs
		a.beforeDispatch(c, func(req any) error {
			r := req.(*edit.PreviewRequest)
			for _, raw := range ops {
				var op edit.Op
				if err := dispatch.DecodeInto([]byte(raw), &op); err != nil {
					return err
				}
				r.Operations = append(r.Operations, op)
			}
			ops = nil
			return nil
		})
		cmd.AddCommand(c)
	}
	txArg := func(req any, args []string) {
		if len(args) > 0 {
			switch r := req.(type) {
			case *edit.TxRequest:
				r.TransactionID = args[0]
			case *edit.RollbackRequest:
				r.TransactionID = args[0]
			}
		}
	}
	commit := a.verb(dispatch.Edit, "commit", "commit TX", nil, txArg)
	rollback := a.verb(dispatch.Edit, "rollback", "rollback TX [--force]", func(f *pflag.FlagSet, req any) {
		f.BoolVar(&req.(*edit.RollbackRequest).Force, "force", false, "restore even files changed since the commit (destructive)")
	}, txArg)
	show := a.verb(dispatch.Edit, "show", "show TX", nil, txArg)
	list := a.verb(dispatch.Edit, "list", "list", func(f *pflag.FlagSet, req any) {
		f.IntVar(&req.(*edit.ListRequest).Limit, "limit", 0, "most transactions to show, 1-100 (default 20)")
	}, nil)
	for _, c := range []*cobra.Command{commit, rollback, show} {
		c.Args = cobra.MaximumNArgs(1)
	}
	list.Args = cobra.NoArgs
	cmd.AddCommand(commit, rollback, show, list)
	return cmd
}
