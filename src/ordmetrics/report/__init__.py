"""What people look at: the command line, the HTML report and the plots."""
