package commands

import (
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentic-workspace/aw/engine/dispatch"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/github"
	"github.com/agentic-workspace/aw/engine/vcs"
)

func (a *app) vcsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vcs",
		Short: dispatch.VCS.Short,
		Long: `Version control (vcs.enabled) on go-git: no git binary is run.
status, diff, log, show and branch (listing) never change anything; init,
add, commit, checkout, branch --create/--delete and push are gated (kind
vcs): staged in Manual mode, refused in Plan mode without an approved plan.
checkout, branch --delete and push --force are destructive and need
allowDestructiveEdits; a forced push is sent as force-with-lease. commit
takes its identity from GIT_AUTHOR_*/GIT_COMMITTER_*, else user.name and
user.email of the repository's or your global git config.

The GitHub actions use the REST API at
github.apiUrl (GitHub Enterprise: https://HOST/api/v3) with the token in the
environment variable github.tokenEnv names (default GH_TOKEN); the token
never appears in output. OWNER/NAME comes from --repo, else from the
"origin" remote in the workspace's .git/config. issue-create and pr-create
are gated (kind vcs): staged in Manual mode, refused in Plan mode without an
approved plan. Lists and pr-diff work without a token on public
repositories.`,
	}
	repo := func(f *pflag.FlagSet, p *string) {
		f.StringVar(p, "repo", "", "OWNER/NAME (default: the origin remote of the workspace's git repository)")
	}

	auth := a.verb(dispatch.VCS, "gh_auth", "gh-auth", nil, nil)
	auth.Args = cobra.NoArgs

	issueList := a.verb(dispatch.VCS, "issue_list", "issue-list [--state S] [--label L]... [--limit N]", func(f *pflag.FlagSet, req any) {
		r := req.(*github.IssueListRequest)
		repo(f, &r.Repo)
		f.StringVar(&r.State, "state", "", "open (default), closed or all")
		f.StringArrayVar((*[]string)(&r.Labels), "label", nil, "only issues with this label (repeatable: all of them)")
		f.IntVar(&r.Limit, "limit", 0, "most issues, 1-1000 (default 30)")
	}, nil)
	issueList.Args = cobra.NoArgs

	issueCreate := a.verb(dispatch.VCS, "issue_create", "issue-create --title T [--body B] [--label L]...", func(f *pflag.FlagSet, req any) {
		r := req.(*github.IssueCreateRequest)
		repo(f, &r.Repo)
		f.StringVar(&r.Title, "title", "", "the issue's title")
		f.StringVar(&r.Body, "body", "", "the issue's body (Markdown)")
		f.StringArrayVar((*[]string)(&r.Labels), "label", nil, "a label to set (repeatable)")
		f.StringArrayVar((*[]string)(&r.Assignees), "assignee", nil, "a login to assign (repeatable)")
	}, nil)
	issueCreate.Args = cobra.NoArgs

	prList := a.verb(dispatch.VCS, "pr_list", "pr-list [--state S] [--base B] [--head OWNER:BRANCH] [--limit N]", func(f *pflag.FlagSet, req any) {
		r := req.(*github.PRListRequest)
		repo(f, &r.Repo)
		f.StringVar(&r.State, "state", "", "open (default), closed or all")
		f.StringVar(&r.Base, "base", "", "only pull requests into this branch")
		f.StringVar(&r.Head, "head", "", "only pull requests from OWNER:BRANCH")
		f.IntVar(&r.Limit, "limit", 0, "most pull requests, 1-1000 (default 30)")
	}, nil)
	prList.Args = cobra.NoArgs

	prCreate := a.verb(dispatch.VCS, "pr_create", "pr-create --title T [--head BRANCH] [--base BRANCH] [--body B] [--draft]", func(f *pflag.FlagSet, req any) {
		r := req.(*github.PRCreateRequest)
		repo(f, &r.Repo)
		f.StringVar(&r.Title, "title", "", "the pull request's title")
		f.StringVar(&r.Head, "head", "", "the branch with the changes (default: the workspace's current branch)")
		f.StringVar(&r.Base, "base", "", "the branch to merge into (default: the repository's default branch)")
		f.StringVar(&r.Body, "body", "", "the description (Markdown)")
		f.BoolVar(&r.Draft, "draft", false, "open it as a draft")
	}, nil)
	prCreate.Args = cobra.NoArgs

	var number string
	prDiff := a.verb(dispatch.VCS, "pr_diff", "pr-diff NUMBER", func(f *pflag.FlagSet, req any) {
		repo(f, &req.(*github.PRDiffRequest).Repo)
	}, func(req any, args []string) {
		if len(args) > 0 {
			number = args[0]
		}
	})
	prDiff.Args = cobra.MaximumNArgs(1)
	a.beforeDispatch(prDiff, func(req any) error {
		if number == "" {
			return nil
		}
		n, err := strconv.Atoi(number)
		if err != nil || n < 1 {
			return envelope.Errorf(envelope.InvalidInput, "pull request number %q is not a positive integer", number).With("number", number)
		}
		req.(*github.PRDiffRequest).Number = n
		return nil
	})

	cmd.AddCommand(a.vcsGitVerbs()...)
	cmd.AddCommand(auth, issueList, issueCreate, prList, prCreate, prDiff)
	return cmd
}

// vcsGitVerbs are the go-git verbs of the vcs noun.
func (a *app) vcsGitVerbs() []*cobra.Command {
	status := a.verb(dispatch.VCS, "status", "status [PATH...] [--ignored]", func(f *pflag.FlagSet, req any) {
		f.BoolVar(&req.(*vcs.StatusRequest).Ignored, "ignored", false, "list ignored files too (!!)")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*vcs.StatusRequest).Paths = args
		}
	})

	diff := a.verb(dispatch.VCS, "diff", "diff [--staged] [PATH...]", func(f *pflag.FlagSet, req any) {
		r := req.(*vcs.DiffRequest)
		f.BoolVar(&r.Staged, "staged", false, "the index against HEAD instead of the worktree against the index")
		f.BoolVar(&r.Staged, "cached", false, "same as --staged")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*vcs.DiffRequest).Paths = args
		}
	})

	log := a.verb(dispatch.VCS, "log", "log [--limit N] [REV] [-- PATH...]", func(f *pflag.FlagSet, req any) {
		r := req.(*vcs.LogRequest)
		f.IntVarP(&r.Limit, "limit", "n", 0, "most commits, 1-1000 (default 20)")
	}, nil)
	log.Args = cobra.ArbitraryArgs
	a.beforeDispatch(log, func(req any) error {
		r := req.(*vcs.LogRequest)
		args := log.Flags().Args()
		dash := log.ArgsLenAtDash()
		before, after := args, []string(nil)
		if dash >= 0 {
			before, after = args[:dash], args[dash:]
		}
		if len(before) > 1 {
			return envelope.Errorf(envelope.InvalidInput, "log takes at most one revision before --; put paths after --: aw vcs log [REV] -- PATH")
		}
		if len(before) == 1 {
			r.Rev = before[0]
		}
		if len(after) > 0 {
			r.Paths = after
		}
		return nil
	})

	show := a.verb(dispatch.VCS, "show", "show [REV]", nil, func(req any, args []string) {
		if len(args) > 0 {
			req.(*vcs.ShowRequest).Rev = args[0]
		}
	})
	show.Args = cobra.MaximumNArgs(1)

	add := a.verb(dispatch.VCS, "add", "add PATH...", nil, func(req any, args []string) {
		if len(args) > 0 {
			req.(*vcs.AddRequest).Paths = args
		}
	})

	commit := a.verb(dispatch.VCS, "commit", "commit -m MSG", func(f *pflag.FlagSet, req any) {
		f.StringVarP(&req.(*vcs.CommitRequest).Message, "message", "m", "", "the commit message")
	}, nil)
	commit.Args = cobra.NoArgs

	checkout := a.verb(dispatch.VCS, "checkout", "checkout REV", nil, func(req any, args []string) {
		if len(args) > 0 {
			req.(*vcs.CheckoutRequest).Rev = args[0]
		}
	})
	checkout.Args = cobra.MaximumNArgs(1)

	branch := a.verb(dispatch.VCS, "branch", "branch [NAME --create [--start REV] | NAME --delete]", func(f *pflag.FlagSet, req any) {
		r := req.(*vcs.BranchRequest)
		f.BoolVar(&r.Create, "create", false, "create branch NAME at HEAD (or --start)")
		f.BoolVar(&r.Delete, "delete", false, "delete branch NAME (destructive)")
		f.StringVar(&r.Start, "start", "", "with --create: the commit to start at")
	}, func(req any, args []string) {
		if len(args) > 0 {
			req.(*vcs.BranchRequest).Name = args[0]
		}
	})
	branch.Args = cobra.MaximumNArgs(1)

	push := a.verb(dispatch.VCS, "push", "push [--remote R] [--force]", func(f *pflag.FlagSet, req any) {
		r := req.(*vcs.PushRequest)
		f.StringVar(&r.Remote, "remote", "", "the remote (default: the branch's, else origin)")
		f.BoolVar(&r.Force, "force", false, "force, sent as force-with-lease (destructive)")
	}, nil)
	push.Args = cobra.NoArgs

	initCmd := a.verb(dispatch.VCS, "init", "init [--branch B]", func(f *pflag.FlagSet, req any) {
		f.StringVar(&req.(*vcs.InitRequest).Branch, "branch", "", "the initial branch (default: init.defaultBranch, else main)")
	}, nil)
	initCmd.Args = cobra.NoArgs

	return []*cobra.Command{status, diff, log, show, add, commit, checkout, branch, push, initCmd}
}
