"""The workers: bot players, AI-turn and analytics jobs on rq, dispatch and recovery.

They read the log and write only through the command path (events.commands.Games.submit), exactly
as a person does; they never import the shell (pbm/).
"""
