from gtkit.cli import main

main()
