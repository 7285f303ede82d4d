from roombot.cli import main

raise SystemExit(main())
