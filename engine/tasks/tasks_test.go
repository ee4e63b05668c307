package tasks

import (
	"context"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func openWS(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(workspace.Options{Root: t.TempDir(), Tier: workspace.TierExec})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func spec(text string, deps ...string) ItemSpec { return ItemSpec{Text: text, DependsOn: deps} }

// wantErr checks an error's code and that its message names want (the
// reference, or the rule's wording).
func wantErr(t *testing.T, err error, code envelope.Code, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got success", code)
	}
	e, ok := err.(*envelope.Error)
	if !ok || e.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	for _, w := range want {
		if !strings.Contains(e.Message, w) {
			t.Errorf("message %q does not contain %q", e.Message, w)
		}
	}
}

// TestDependencyRules is the dependency rules of deps.go, one row each:
// positions inside create/add (forward references allowed), out of range,
// self, cycles, unknown references, item_ ids only in update.
func TestDependencyRules(t *testing.T) {
	ctx := context.Background()
	type board struct {
		id    string
		items []string // ids, in board order
	}
	// existing makes a board a→b (b depends on a) for rules that need items.
	existing := func(t *testing.T, ws *workspace.Workspace) board {
		env, err := Create(ctx, ws, &CreateRequest{Title: "base", Items: []ItemSpec{spec("a"), spec("b", "1")}})
		if err != nil {
			t.Fatal(err)
		}
		d := env.Data.(*BoardData)
		return board{d.Board.ID, d.Added}
	}
	cases := []struct {
		name string
		// run performs the call; b is an existing board a→b.
		run  func(ws *workspace.Workspace, b board) (envelope.Envelope, error)
		code envelope.Code // "" for success
		want []string      // substrings of the error message; $FIRST is the board's first item
		// check inspects a successful result.
		check func(t *testing.T, env envelope.Envelope, b board)
	}{
		{
			name: "create: backward position resolves to the minted id",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x"), spec("y", "1")}})
			},
			check: func(t *testing.T, env envelope.Envelope, b board) {
				d := env.Data.(*BoardData)
				if got := d.Board.Items[1].DependsOn; len(got) != 1 || got[0] != d.Added[0] {
					t.Fatalf("item 2 depends on %v, want [%s]", got, d.Added[0])
				}
			},
		},
		{
			name: "create: forward position is allowed",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", "3"), spec("y", "3"), spec("z")}})
			},
			check: func(t *testing.T, env envelope.Envelope, b board) {
				d := env.Data.(*BoardData)
				for i := 0; i < 2; i++ {
					if got := d.Board.Items[i].DependsOn; len(got) != 1 || got[0] != d.Added[2] {
						t.Fatalf("item %d depends on %v, want [%s]", i+1, got, d.Added[2])
					}
				}
			},
		},
		{
			name: "create: duplicate references collapse",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x"), spec("y", "1", "1")}})
			},
			check: func(t *testing.T, env envelope.Envelope, b board) {
				if got := env.Data.(*BoardData).Board.Items[1].DependsOn; len(got) != 1 {
					t.Fatalf("depends on %v, want one entry", got)
				}
			},
		},
		{
			name: "create: position 0 is outside 1..n",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x"), spec("y", "0")}})
			},
			code: envelope.InvalidInput, want: []string{`"0"`, "outside 1..2"},
		},
		{
			name: "create: position n+1 is outside 1..n",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", "3"), spec("y")}})
			},
			code: envelope.InvalidInput, want: []string{`"3"`, "outside 1..2"},
		},
		{
			name: "create: a huge position is outside 1..n, not an overflow",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", "99999999999999999999999")}})
			},
			code: envelope.InvalidInput, want: []string{`"99999999999999999999999"`, "outside 1..1"},
		},
		{
			name: "create: a position naming its own item",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x"), spec("y", "2")}})
			},
			code: envelope.InvalidInput, want: []string{`"2"`, "itself"},
		},
		{
			name: "create: a two-item cycle",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", "2"), spec("y", "1")}})
			},
			code: envelope.InvalidInput, want: []string{"cycle", "item 1 → item 2 → item 1"},
		},
		{
			name: "create: a three-item cycle names the closing reference",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", "3"), spec("y", "1"), spec("z", "2")}})
			},
			code: envelope.InvalidInput, want: []string{"cycle", `depends_on "1" of item 2`, "item 1 → item 3 → item 2 → item 1"},
		},
		{
			name: "create: an item_ id that does not exist",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", "item_00000000000000000000000")}})
			},
			code: envelope.InvalidInput, want: []string{`"item_00000000000000000000000"`, "no such item"},
		},
		{
			name: "create: an item_ id of another board is unknown here",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", b.items[0])}})
			},
			code: envelope.InvalidInput, want: []string{"$FIRST", "no such item"},
		},
		{
			name: "create: neither a position nor an item_ id",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", "first")}})
			},
			code: envelope.InvalidInput, want: []string{`"first"`, "neither"},
		},
		{
			name: "create: a negative number is not a position",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x"), spec("y", "-1")}})
			},
			code: envelope.InvalidInput, want: []string{`"-1"`, "neither"},
		},
		{
			name: "create: a malformed item_ id is neither",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", "item_x")}})
			},
			code: envelope.InvalidInput, want: []string{`"item_x"`, "neither"},
		},
		{
			name: "create: an empty reference is neither",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Create(ctx, ws, &CreateRequest{Title: "t", Items: []ItemSpec{spec("x", "")}})
			},
			code: envelope.InvalidInput, want: []string{`""`, "neither"},
		},
		{
			name: "add: a position names an item of the same add call",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Add(ctx, ws, &AddRequest{BoardID: b.id, Items: []ItemSpec{spec("c", "2"), spec("d")}})
			},
			check: func(t *testing.T, env envelope.Envelope, b board) {
				d := env.Data.(*BoardData)
				if got := d.Board.Items[2].DependsOn; len(got) != 1 || got[0] != d.Added[1] {
					t.Fatalf("c depends on %v, want [%s] (position 2 of the add call, not of the board)", got, d.Added[1])
				}
			},
		},
		{
			name: "add: positions count the call, not the board",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Add(ctx, ws, &AddRequest{BoardID: b.id, Items: []ItemSpec{spec("c", "3")}})
			},
			code: envelope.InvalidInput, want: []string{`"3"`, "outside 1..1"},
		},
		{
			name: "add: existing item_ ids and positions mix",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Add(ctx, ws, &AddRequest{BoardID: b.id, Items: []ItemSpec{spec("c", b.items[1], "2"), spec("d")}})
			},
			check: func(t *testing.T, env envelope.Envelope, b board) {
				d := env.Data.(*BoardData)
				got := d.Board.Items[2].DependsOn
				if len(got) != 2 || got[0] != b.items[1] || got[1] != d.Added[1] {
					t.Fatalf("c depends on %v", got)
				}
			},
		},
		{
			name: "add: a self position",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Add(ctx, ws, &AddRequest{BoardID: b.id, Items: []ItemSpec{spec("c", "1")}})
			},
			code: envelope.InvalidInput, want: []string{`"1"`, "itself"},
		},
		{
			name: "add: a cycle among the added items",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Add(ctx, ws, &AddRequest{BoardID: b.id, Items: []ItemSpec{spec("c", "2"), spec("d", "1", b.items[0])}})
			},
			code: envelope.InvalidInput, want: []string{"cycle"},
		},
		{
			name: "add: an unknown item_ id",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Add(ctx, ws, &AddRequest{BoardID: b.id, Items: []ItemSpec{spec("c", "item_00000000000000000000000")}})
			},
			code: envelope.InvalidInput, want: []string{`"item_00000000000000000000000"`},
		},
		{
			name: "update: a position is refused, valid only inside create/add",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Update(ctx, ws, &UpdateRequest{BoardID: b.id, ItemID: b.items[0], DependsOn: &[]string{"2"}})
			},
			code: envelope.InvalidInput, want: []string{`"2"`, "positions are valid only inside the create/add call that mints the items"},
		},
		{
			name: "update: an item_ id of the board",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				c, _ := Add(ctx, ws, &AddRequest{BoardID: b.id, Items: []ItemSpec{spec("c")}})
				return Update(ctx, ws, &UpdateRequest{BoardID: b.id, ItemID: b.items[0], DependsOn: &[]string{c.Data.(*BoardData).Added[0]}})
			},
			check: func(t *testing.T, env envelope.Envelope, b board) {
				if got := env.Data.(*UpdateData).Item.DependsOn; len(got) != 1 {
					t.Fatalf("depends on %v", got)
				}
			},
		},
		{
			name: "update: itself",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Update(ctx, ws, &UpdateRequest{BoardID: b.id, ItemID: b.items[0], DependsOn: &[]string{b.items[0]}})
			},
			code: envelope.InvalidInput, want: []string{"$FIRST", "itself"},
		},
		{
			name: "update: a cycle through an existing edge",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Update(ctx, ws, &UpdateRequest{BoardID: b.id, ItemID: b.items[0], DependsOn: &[]string{b.items[1]}})
			},
			code: envelope.InvalidInput, want: []string{"cycle"},
		},
		{
			name: "update: an unknown item_ id",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Update(ctx, ws, &UpdateRequest{BoardID: b.id, ItemID: b.items[0], DependsOn: &[]string{"item_00000000000000000000000"}})
			},
			code: envelope.InvalidInput, want: []string{`"item_00000000000000000000000"`, "no such item"},
		},
		{
			name: "update: neither",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Update(ctx, ws, &UpdateRequest{BoardID: b.id, ItemID: b.items[0], DependsOn: &[]string{"b"}})
			},
			code: envelope.InvalidInput, want: []string{`"b"`, "neither"},
		},
		{
			name: "update: an empty list clears the dependencies",
			run: func(ws *workspace.Workspace, b board) (envelope.Envelope, error) {
				return Update(ctx, ws, &UpdateRequest{BoardID: b.id, ItemID: b.items[1], DependsOn: &[]string{}})
			},
			check: func(t *testing.T, env envelope.Envelope, b board) {
				if got := env.Data.(*UpdateData).Item.DependsOn; len(got) != 0 {
					t.Fatalf("depends on %v", got)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := openWS(t)
			b := existing(t, ws)
			before, _ := load(ws, b.id)
			env, err := tc.run(ws, b)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				tc.check(t, env, b)
				return
			}
			var want []string
			for _, w := range tc.want {
				want = append(want, strings.ReplaceAll(w, "$FIRST", b.items[0]))
			}
			wantErr(t, err, tc.code, want...)
			// A refused call changes nothing.
			after, _ := load(ws, b.id)
			if len(after.Items) != len(before.Items) || !slicesEqual(after.Items[0].DependsOn, before.Items[0].DependsOn) {
				t.Fatalf("a refused call changed the board")
			}
		})
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }
