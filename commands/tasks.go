package commands

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/tasks"
)

func (a *app) tasksCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: dispatch.Tasks.Short,
		Long: `To-Do boards live in .agentic/tasks/<board_id>/state.json and are never
gated. Items: {id item_…, text, status pending|in_progress|completed|blocked|
cancelled, priority high|medium|low (default medium), details, depends_on,
evidence}. Evidence starts empty and is appended by update.

Dependencies must exist and stay acyclic. Inside one create/add call a
depends_on entry may be a 1-based position ("1", "2", …) naming an item of
that same call (forward references allowed); update takes item_ ids only.
next returns the highest-priority pending item whose dependencies are all
completed (ties: board order). remove refuses an item others depend on
unless --detach drops it from their depends_on. An archived board is
read-only until reopen.`,
	}

	// --item is TEXT, or a JSON item object when it starts with "{".
	itemsFlag := func(c *cobra.Command, items *[]string) {
		a.beforeDispatch(c, func(req any) error {
			var specs *[]tasks.ItemSpec
			switch r := req.(type) {
			case *tasks.CreateRequest:
				specs = &r.Items
			case *tasks.AddRequest:
				specs = &r.Items
			}
			for _, raw := range *items {
				if strings.HasPrefix(strings.TrimSpace(raw), "{") {
					var spec tasks.ItemSpec
					if err := dispatch.DecodeInto([]byte(raw), &spec); err != nil {
						return err
					}
					*specs = append(*specs, spec)
				} else {
					*specs = append(*specs, tasks.ItemSpec{Text: raw})
				}
			}
			*items = nil
			return nil
		})
	}
	const itemHelp = `an item: its text, or a JSON object {"text","status","priority","details","depends_on":["1","item_…"]} (repeatable, in order: positions count from 1)`

	var createItems []string
	create := a.verb(dispatch.Tasks, "create", "create TITLE [--item TEXT|JSON]...", func(f *pflag.FlagSet, req any) {
		f.StringArrayVar(&createItems, "item", nil, itemHelp)
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*tasks.CreateRequest).Title = args[0]
		}
	})
	create.Args = cobra.MaximumNArgs(1)
	itemsFlag(create, &createItems)

	list := a.verb(dispatch.Tasks, "list", "list [--all]", func(f *pflag.FlagSet, req any) {
		r := req.(*tasks.ListRequest)
		f.BoolVar(&r.IncludeArchived, "all", false, "include archived boards")
		f.IntVar(&r.Limit, "limit", 0, "most boards to show, 1-200 (default 50)")
	}, nil)
	list.Args = cobra.NoArgs

	board := func(req any, args []string) {
		if len(args) == 0 {
			return
		}
		switch r := req.(type) {
		case *tasks.ShowRequest:
			r.BoardID = args[0]
		case *tasks.BoardRequest:
			r.BoardID = args[0]
		case *tasks.AddRequest:
			r.BoardID = args[0]
		case *tasks.CheckpointRequest:
			r.BoardID = args[0]
		}
	}
	show := a.verb(dispatch.Tasks, "show", "show BOARD [--checkpoint ID]", func(f *pflag.FlagSet, req any) {
		f.StringVar(&req.(*tasks.ShowRequest).CheckpointID, "checkpoint", "", "show this checkpoint's snapshot instead of the board")
	}, board)

	var addItems []string
	add := a.verb(dispatch.Tasks, "add", "add BOARD --item TEXT|JSON...", func(f *pflag.FlagSet, req any) {
		f.StringArrayVar(&addItems, "item", nil, itemHelp)
	}, board)
	itemsFlag(add, &addItems)

	var noDeps bool
	update := a.verb(dispatch.Tasks, "update", "update BOARD ITEM [--status S] [--evidence TEXT]...", func(f *pflag.FlagSet, req any) {
		r := req.(*tasks.UpdateRequest)
		f.Var(optionalString{&r.Text}, "text", "new text")
		f.Var(optionalString{&r.Status}, "status", "pending, in_progress, completed, blocked or cancelled")
		f.Var(optionalString{&r.Priority}, "priority", "high, medium or low")
		f.Var(optionalString{&r.Details}, "details", "new details")
		f.Var(optionalStrings{&r.DependsOn}, "depends-on", "an item_ id this item depends on (repeatable; replaces the list)")
		f.BoolVar(&noDeps, "no-depends-on", false, "clear the item's dependencies")
		f.StringArrayVar((*[]string)(&r.Evidence), "evidence", nil, "evidence to append (repeatable)")
	}, func(req any, args []string) {
		r := req.(*tasks.UpdateRequest)
		if len(args) > 0 {
			r.BoardID = args[0]
		}
		if len(args) > 1 {
			r.ItemID = args[1]
		}
	})
	a.beforeDispatch(update, func(req any) error {
		if noDeps {
			req.(*tasks.UpdateRequest).DependsOn = &[]string{}
		}
		return nil
	})

	remove := a.verb(dispatch.Tasks, "remove", "remove BOARD ITEM [--detach]", func(f *pflag.FlagSet, req any) {
		f.BoolVar(&req.(*tasks.RemoveRequest).Detach, "detach", false, "also drop the item from the depends_on of items that name it")
	}, func(req any, args []string) {
		r := req.(*tasks.RemoveRequest)
		if len(args) > 0 {
			r.BoardID = args[0]
		}
		if len(args) > 1 {
			r.ItemID = args[1]
		}
	})

	note := a.verb(dispatch.Tasks, "note", "note BOARD TEXT [--item ITEM]", func(f *pflag.FlagSet, req any) {
		f.StringVar(&req.(*tasks.NoteRequest).ItemID, "item", "", "the item the note is about")
	}, func(req any, args []string) {
		r := req.(*tasks.NoteRequest)
		if len(args) > 0 {
			r.BoardID = args[0]
		}
		if len(args) > 1 {
			r.Text = args[1]
		}
	})

	checkpoint := a.verb(dispatch.Tasks, "checkpoint", "checkpoint BOARD [--label TEXT]", func(f *pflag.FlagSet, req any) {
		f.StringVar(&req.(*tasks.CheckpointRequest).Label, "label", "", "what the checkpoint marks")
	}, board)
	next := a.verb(dispatch.Tasks, "next", "next BOARD", nil, board)
	archive := a.verb(dispatch.Tasks, "archive", "archive BOARD", nil, board)
	reopen := a.verb(dispatch.Tasks, "reopen", "reopen BOARD", nil, board)

	for _, c := range []*cobra.Command{show, add, checkpoint, next, archive, reopen} {
		c.Args = cobra.MaximumNArgs(1)
	}
	for _, c := range []*cobra.Command{update, remove, note} {
		c.Args = cobra.MaximumNArgs(2)
	}
	todo := &cobra.Command{
		Use:   "todo",
		Short: "The session checklist: write replaces it whole, read returns it with counts",
		Long: `The session checklist lives in .agentic/tasks/todo.json beside the boards.
write replaces it with the complete list it is given:

  aw tasks todo write --input items.json   # {"todos":[{"content":"…","status":"in_progress"}]}

Items {id, content, status pending|in_progress|completed (default pending)},
at most 100; an item without an id gets its position ("1", "2", …).`,
	}
	todoWrite := a.verb(dispatch.Tasks, "todo_write", "write --input FILE|-", nil, nil)
	todoWrite.Args = cobra.NoArgs
	todoRead := a.verb(dispatch.Tasks, "todo_read", "read", nil, nil)
	todoRead.Args = cobra.NoArgs
	todo.AddCommand(todoWrite, todoRead)
	cmd.AddCommand(create, list, show, add, update, remove, note, checkpoint, next, archive, reopen, todo)
	return cmd
}

// optionalStrings is a repeatable flag bound to a *[]string field, so "not
// given" (nil) and "given" stay distinct.
type optionalStrings struct{ p **[]string }

func (o optionalStrings) String() string {
	if o.p == nil || *o.p == nil {
		return "[]"
	}
	return "[" + strings.Join(**o.p, ",") + "]"
}

func (o optionalStrings) Set(s string) error { return o.Append(s) }

func (o optionalStrings) Type() string { return "stringArray" }

// Append adds one value (pflag.SliceValue).
func (o optionalStrings) Append(s string) error {
	if *o.p == nil {
		*o.p = &[]string{}
	}
	**o.p = append(**o.p, s)
	return nil
}

// Replace sets the whole list (pflag.SliceValue).
func (o optionalStrings) Replace(v []string) error {
	c := append([]string{}, v...)
	*o.p = &c
	return nil
}

// GetSlice returns the list (pflag.SliceValue).
func (o optionalStrings) GetSlice() []string {
	if *o.p == nil {
		return nil
	}
	return **o.p
}
