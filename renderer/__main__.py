from renderer.cli import main

raise SystemExit(main())
