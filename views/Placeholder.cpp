// placeholder replaced by the views work
